"""Devices on the Pi: gpiozero status LEDs, buttons and buzzer, the cell-light plan and
camera sources. Never decides a move."""
