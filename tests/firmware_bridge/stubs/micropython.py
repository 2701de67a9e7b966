"""Stand-in for MicroPython's ``micropython`` module: records the interrupt character."""

interrupt_char = 3


def kbd_intr(char):
    global interrupt_char
    interrupt_char = char
