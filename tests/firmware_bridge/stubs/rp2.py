"""Stand-in for MicroPython's ``rp2``: PIO programs are recorded, not assembled, and a
state machine keeps the words it was given so a test can read the LED data."""


class PIO:
    OUT_LOW = 0
    SHIFT_LEFT = 0


class Program:
    def __init__(self, body, settings):
        self.body = body
        self.settings = settings


def asm_pio(**settings):
    return lambda body: Program(body, settings)


class StateMachine:
    made = []

    def __init__(self, ident, program, freq, sideset_base):
        self.ident = ident
        self.program = program
        self.freq = freq
        self.running = False
        self.sent = []
        StateMachine.made.append(self)

    def active(self, on):
        self.running = bool(on)

    def put(self, words, shift=0):
        self.sent.append([word << shift for word in words])
