// @ts-check
// The referee page's speech settings: for the table screen, the players' phones and
// the table's own speaker, whether each speaks and sounds, at what volume, speed and
// voice, each change sent to the service (POST /api/speech), which pushes it to every
// page. A "try it" button says a sample on this page with the outlet's settings. The
// Pi's problem (a voice not installed...) is shown as the service words it.
import { $, post, render, said, say, state } from "./core.js";
import { speak, speechOf, voiceFor } from "./speech.js";

// the outlets and what the page calls them
const OUTLETS = [["kiosk", "speech.kiosk"], ["phones", "speech.phones"], ["pi", "speech.pi"]];
// each setting: its field, its words, and its control's attributes
const SWITCHES = [["on", "speech.on"], ["sounds", "speech.sounds"]];
const SLIDERS = [["volume", "speech.volume", 0, 1], ["speed", "speech.speed", 0.5, 2]];

let drawn = ""; // what the controls were built for: the language and the voices offered

// Draw the settings of the state shown (the referee page, on every render).
export function showSpeechSettings() {
  const speech = speechOf(state);
  const voices = "speechSynthesis" in window ? speechSynthesis.getVoices().map((v) => v.name) : [];
  const built = JSON.stringify([document.documentElement.lang, voices, speech.pi.voices]);
  if (built !== drawn) {
    drawn = built;
    $("speech-outlets").replaceChildren(...OUTLETS.map(([outlet, name]) =>
      outletControls(outlet, name, outlet === "pi" ? speech.pi.voices : voices)));
  }
  for (const [outlet] of OUTLETS) showValues(outlet, speech[outlet]);
  const pi = speech.pi;
  $("speech-pi-engine").textContent = say("speech.engine", { engine: pi.engine });
  $("speech-pi-problem").hidden = !pi.problem;
  $("speech-pi-problem").textContent = pi.problem ? said(pi.problem) : "";
  $("speech-no-voice").hidden = !("speechSynthesis" in window) || voiceFor(null) !== null;
}

function outletControls(outlet, name, voices) {
  const box = document.createElement("fieldset");
  box.dataset.outlet = outlet;
  const legend = document.createElement("legend");
  legend.textContent = say(name);
  box.append(legend);
  for (const [field, words] of SWITCHES) {
    const control = input(outlet, field, "checkbox");
    control.onchange = () => change(outlet, field, control.checked);
    box.append(labelled(control, words));
  }
  for (const [field, words, low, high] of SLIDERS) {
    const control = input(outlet, field, "range");
    Object.assign(control, { min: String(low), max: String(high), step: "0.1" });
    control.onchange = () => change(outlet, field, Number(control.value));
    box.append(labelled(control, words));
  }
  const choice = document.createElement("select");
  choice.id = `speech-${outlet}-voice`;
  // the first choice: no voice named, one of the page's language (the engine's own on the Pi)
  choice.append(new Option(say("speech.voice_default"), ""), ...voices.map((v) => new Option(v, v)));
  choice.onchange = () => change(outlet, "voice", choice.value || null);
  box.append(labelled(choice, "speech.voice"));
  if (outlet === "pi") {
    box.append(note("speech-pi-engine", "hint"), note("speech-pi-problem", "refusal"));
  } else {
    const test = document.createElement("button");
    test.className = "secondary";
    test.id = `speech-${outlet}-test`;
    test.textContent = say("speech.test");
    test.onclick = () => speak([say("speech.sample")], speechOf(state)[outlet]);
    box.append(test);
  }
  return box;
}

function input(outlet, field, type) {
  const control = document.createElement("input");
  control.type = type;
  control.id = `speech-${outlet}-${field}`;
  return control;
}

function labelled(control, words) {
  const label = document.createElement("label");
  label.className = `speech-${control.type === "checkbox" ? "switch" : "setting"}`;
  const text = document.createElement("span");
  text.textContent = say(words);
  label.append(text, control);
  return label;
}

function note(id, className) {
  const line = document.createElement("p");
  line.id = id;
  line.className = className;
  return line;
}

// the controls show the settings pushed, except the one the referee is changing now
function showValues(outlet, settings) {
  for (const [field, value] of Object.entries(settings)) {
    const control = /** @type {HTMLInputElement | null} */ ($(`speech-${outlet}-${field}`));
    if (!control || control === document.activeElement && control.type !== "checkbox") continue;
    if (control.type === "checkbox") control.checked = Boolean(value);
    else control.value = value === null ? "" : String(value);
  }
}

function change(outlet, field, value) {
  post("/api/speech", { outlet, [field]: value });
}

// the browser names its voices a moment after the page loads
if ("speechSynthesis" in window) speechSynthesis.addEventListener("voiceschanged", () => { if (state) render(); });
