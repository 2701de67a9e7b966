"""A fake of MicroPython's ``micropython`` module for the firmware under CPython (the
WebAssembly port has the real one): it keeps the interrupt character."""

interrupt_char = 3


def kbd_intr(char):
    global interrupt_char
    interrupt_char = char
