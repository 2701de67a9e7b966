// @ts-check
// The table's short sounds on a page, made with WebAudio oscillators (no sound files):
// "accepted", "refused", "your_turn" and "over", each a few notes of its own, so a
// table that runs with speech off still hears what happened. It plays nothing before
// a tap has allowed the page audio (browsers' autoplay rules) and never speaks.

// each sound's notes: [frequency in Hz, start in s, length in s]; the kind of wave
const SOUNDS = {
  accepted: { wave: "sine", notes: [[660, 0, 0.09], [880, 0.1, 0.12]] },
  refused: { wave: "square", notes: [[220, 0, 0.14], [185, 0.16, 0.2]] },
  your_turn: { wave: "triangle", notes: [[523, 0, 0.1], [659, 0.11, 0.1], [784, 0.22, 0.14]] },
  over: { wave: "triangle", notes: [[784, 0, 0.14], [659, 0.15, 0.14], [523, 0.3, 0.14], [1047, 0.45, 0.3]] },
};

/** @type {AudioContext | null} */
let audio = null;

// Called on the tap that allows audio: a context made or resumed then may play later.
export function allowSounds() {
  if (!audio && typeof AudioContext === "function") audio = new AudioContext();
  if (audio && audio.state === "suspended") audio.resume();
}

// Play ``name`` (one of SOUNDS) at ``volume`` (0..1); unknown names and a page not yet
// allowed audio stay silent.
export function playSound(name, volume) {
  const sound = SOUNDS[name];
  if (!sound || !audio || volume <= 0) return;
  const now = audio.currentTime;
  for (const [frequency, start, length] of sound.notes) {
    const tone = audio.createOscillator();
    const level = audio.createGain();
    tone.type = sound.wave;
    tone.frequency.value = frequency;
    // a short fade in and out: a note cut off hard clicks
    level.gain.setValueAtTime(0, now + start);
    level.gain.linearRampToValueAtTime(0.3 * volume, now + start + 0.01);
    level.gain.linearRampToValueAtTime(0, now + start + length);
    tone.connect(level).connect(audio.destination);
    tone.start(now + start);
    tone.stop(now + start + length + 0.02);
  }
}
