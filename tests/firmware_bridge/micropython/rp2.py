"""A fake of MicroPython's ``rp2`` for the firmware under the WebAssembly port.

Written for MicroPython. Like the real ``rp2.asm_pio`` it runs the PIO program's
body with the assembler's names in the body's globals, so a misspelt instruction
fails here too; a state machine passes the words it is given to ``pico_board``.
"""

import pico_board


class PIO:
    OUT_LOW = 0
    OUT_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1


class _Instruction:
    def __init__(self, program):
        self._program = program
        program.length += 1

    def side(self, value):
        return self

    def __getitem__(self, delay):
        if not 0 <= delay <= 31:
            raise ValueError("PIO delay out of range")
        return self


class _Program:
    def __init__(self, settings):
        self.settings = settings
        self.length = 0
        self.labels = []

    def names(self):
        def instruction(*args):
            return _Instruction(self)

        def label(name):
            self.labels.append(name)

        return {
            "wrap_target": lambda: None,
            "wrap": lambda: None,
            "label": label,
            "out": instruction,
            "jmp": instruction,
            "nop": instruction,
            "set": instruction,
            "in_": instruction,
            "pull": instruction,
            "push": instruction,
            "mov": instruction,
            "wait": instruction,
            "x": "x",
            "y": "y",
            "pins": "pins",
            "not_x": "not_x",
            "not_y": "not_y",
        }


def asm_pio(**settings):
    def assemble(body):
        program = _Program(settings)
        scope = body.__globals__
        kept = dict(scope)
        scope.update(program.names())
        try:
            body()
        finally:
            scope.clear()
            scope.update(kept)
        if program.length > 32:
            raise ValueError("a PIO program holds at most 32 instructions")
        return program

    return assemble


class StateMachine:
    def __init__(self, ident, program, freq, sideset_base):
        if not 0 <= ident <= 7:
            raise ValueError("the RP2040 has state machines 0 to 7")
        self.program = program

    def active(self, on):
        pico_board.strip_active = bool(on)

    def put(self, words, shift=0):
        pico_board.show(words, shift)
