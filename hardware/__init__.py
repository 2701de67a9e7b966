"""Devices on the Pi: gpiozero status LEDs, buttons and buzzer, the cell-light plan and
camera sources. Built by the referee-service issue; never decides a move."""
