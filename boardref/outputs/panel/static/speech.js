// @ts-check
// The table's voice on the pages: each new announcement in the state's ``said`` is
// spoken with the browser's speechSynthesis, in the page's language and its word
// table, and its short sound played (sounds.js). The kiosk says the table's
// announcements; a phone its own seat's, and the table's too where its "table too"
// box is ticked; spectators' pages and the referee's never speak. It must never say
// an announcement twice: what a page finds on load (or from a restarted service)
// counts as said, and only higher numbers are said after.
import { $, role, said, seat } from "./core.js";
import { allowSounds, playSound } from "./sounds.js";

const OUTLET_DEFAULTS = { on: true, volume: 1, speed: 1, voice: null, sounds: true };
// the contract's defaults, for a state that names no settings: the Pi is silent
const DEFAULTS = {
  kiosk: OUTLET_DEFAULTS,
  phones: OUTLET_DEFAULTS,
  pi: { ...OUTLET_DEFAULTS, on: false, engine: "espeak-ng", problem: null, voices: [] },
};

// The speech settings of ``table`` (a state), every outlet with every field.
export function speechOf(table) {
  const given = (table && table.speech) || {};
  return Object.fromEntries(Object.entries(DEFAULTS).map(([outlet, defaults]) =>
    [outlet, { ...defaults, ...(given[outlet] || {}) }]));
}

// the outlet this page speaks as, or null where it never speaks
const OUTLET = { table: "kiosk", play: "phones" }[role] || null;
// a phone's choice, kept per seat: one browser may hold the phones of several seats
const TABLE_TOO = `boardref-table-too-${seat}`;

// the service run and the highest announcement number this page has heard of
let heardRun = null;
let highest = 0;

// Whether a tap on this page has allowed it audio. Not the browser's own record
// (navigator.userActivation): a page opened by the kiosk's browser counts as tapped
// there, where a browser's autoplay rules may still hold its voice back.
let tapped = false;
const allowed = () => tapped;

// Whether this page says ``announcement``.
function forThisPage(announcement) {
  if (role === "table") return announcement.to === null;
  if (role !== "play") return false;
  return announcement.to === seat || (announcement.to === null && localStorage.getItem(TABLE_TOO) === "yes");
}

// Say what ``table`` (a state just taken) announces that this page has not said yet.
export function hearSaid(table) {
  const list = table.said || [];
  const newest = Math.max(0, ...list.map((a) => a.number));
  const fresh = heardRun === table.run ? list.filter((a) => a.number > highest && forThisPage(a)) : [];
  heardRun = table.run;
  highest = Math.max(highest, newest);
  showTapToHear(table);
  if (!OUTLET || !fresh.length || !allowed()) return;
  const settings = speechOf(table)[OUTLET];
  const sounding = fresh.filter((a) => a.sound).pop();
  if (settings.sounds && sounding) playSound(sounding.sound, settings.volume);
  if (settings.on) speak(fresh.map((a) => said(a.said)), settings);
}

// Say ``sentences`` in order with an outlet's ``settings``; what an earlier state
// left to say is dropped first (a turn's prompt is not read once the turn is over).
// Nothing is said where the browser has no voice for the page's language.
export function speak(sentences, settings) {
  if (!("speechSynthesis" in window)) return;
  const voice = voiceFor(settings.voice);
  if (!voice) return;
  speechSynthesis.cancel();
  for (const sentence of sentences) {
    const utterance = new SpeechSynthesisUtterance(sentence);
    utterance.voice = voice;
    utterance.lang = voice.lang;
    utterance.rate = settings.speed;
    utterance.volume = settings.volume;
    utterance.onstart = () => { document.body.dataset.speaking = "yes"; };
    utterance.onend = utterance.onerror = () => { document.body.dataset.speaking = "no"; };
    speechSynthesis.speak(utterance);
  }
}

// The voice called ``name`` where the browser has it, else its first voice for the
// page's language; null where it has none.
export function voiceFor(name) {
  if (!("speechSynthesis" in window)) return null;
  const voices = speechSynthesis.getVoices();
  const lang = document.documentElement.lang || "en";
  return voices.find((v) => name && (v.name === name || v.voiceURI === name))
    || voices.find((v) => v.lang.toLowerCase().startsWith(lang.toLowerCase())) || null;
}

// The kiosk's (and a phone's) "tap to hear the table" button, while this page may
// speak or sound and no tap has allowed it yet.
function showTapToHear(table) {
  const tap = $("hear");
  if (!tap) return;
  const settings = OUTLET && speechOf(table)[OUTLET];
  tap.hidden = !settings || !(settings.on || settings.sounds) || allowed();
}

function wire() {
  // any tap allows audio (the button only asks for one): the sounds' context is made on
  // the first; the button goes when the tap is over, as the header closing up under a
  // finger still down would hand its click to whatever moved there
  const hide = () => { if ($("hear")) $("hear").hidden = true; };
  /** @param {Event} event */
  const allow = (event) => {
    tapped = true;
    allowSounds();
    addEventListener(event.type === "keydown" ? "keyup" : "click", hide, { once: true });
  };
  addEventListener("pointerdown", allow, { once: true });
  addEventListener("keydown", allow, { once: true });
  const tableToo = /** @type {HTMLInputElement} */ ($("table-too"));
  if (tableToo) {
    tableToo.checked = localStorage.getItem(TABLE_TOO) === "yes";
    tableToo.onchange = () => localStorage.setItem(TABLE_TOO, tableToo.checked ? "yes" : "no");
  }
}

wire();
