// The game's sounds, made with the Web Audio API (no files): card placed, card home,
// shuffle, refused, countdown ticks and "Go!", a rival finishing, your finish, race over.
// Silent until the page has had a user gesture (as browsers require). The mute toggle is
// remembered; muted, the graph's master gain is 0, its context suspended, and no sound is
// made. Vibration, where the device has it, follows the mute too.

import { store } from "./dom.js";

const KEY = "crescent.muted";
const VOLUME = 0.35;

class Sound {
  constructor() {
    this.muted = store.get(KEY) === "1";
    this.ctx = null;
    this.master = null;
    this.voices = 0; // sounds started (tests read it)
    this.listeners = new Set();
    this.report();
    const unlock = () => this.unlock();
    for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, unlock, { capture: true, passive: true });
  }

  /** The first gesture: the audio graph is made (and kept suspended while muted). */
  unlock() {
    if (this.ctx) {
      if (!this.muted && this.ctx.state === "suspended") this.ctx.resume();
      return;
    }
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    this.ctx = new Context();
    this.master = this.ctx.createGain();
    this.master.gain.value = this.muted ? 0 : VOLUME;
    this.master.connect(this.ctx.destination);
    this.ctx.addEventListener("statechange", () => this.report());
    if (this.muted) this.ctx.suspend();
    this.report();
  }

  setMuted(muted) {
    this.muted = muted;
    store.set(KEY, muted ? "1" : "0");
    if (this.master) this.master.gain.value = muted ? 0 : VOLUME;
    if (this.ctx) muted ? this.ctx.suspend() : this.ctx.resume();
    for (const listener of this.listeners) listener(muted);
    this.report();
  }

  /** What the graph is doing, for tests and tools: {muted, context, gain, voices}. */
  state() {
    return { muted: this.muted, context: this.ctx?.state ?? "none", gain: this.master?.gain.value ?? 0, voices: this.voices };
  }

  /** Mirror state() on the page (<html data-sound>), where a test or a tool can read it
   * whether the modules are served one by one or flattened into one script. */
  report() {
    if (typeof document !== "undefined") document.documentElement.dataset.sound = JSON.stringify(this.state());
  }

  /** Play cue ``name`` (see CUES); nothing when muted or before a gesture. */
  play(name) {
    const cue = CUES[name];
    if (!cue || this.muted || !this.ctx || this.ctx.state === "closed") return;
    this.voices += 1;
    cue(this, this.ctx.currentTime + 0.01);
    this.report();
  }

  /** Vibrate ``pattern`` (ms) where supported and not muted. */
  buzz(pattern) {
    if (!this.muted && this.ctx) navigator.vibrate?.(pattern);
  }

  /** A tone: ``type`` oscillator at ``freq`` Hz (to ``to`` Hz) from ``at`` for ``len`` s. */
  tone(at, freq, len, { type = "sine", gain = 1, to = null } = {}) {
    const ctx = this.ctx;
    const osc = ctx.createOscillator();
    const env = ctx.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(freq, at);
    if (to) osc.frequency.exponentialRampToValueAtTime(to, at + len);
    env.gain.setValueAtTime(0.0001, at);
    env.gain.exponentialRampToValueAtTime(gain, at + 0.008);
    env.gain.exponentialRampToValueAtTime(0.0001, at + len);
    osc.connect(env).connect(this.master);
    osc.start(at);
    osc.stop(at + len + 0.02);
  }

  /** A short burst of filtered noise: a card's snap. */
  snap(at, len = 0.05, freq = 2400, gain = 0.9) {
    const ctx = this.ctx;
    const n = Math.ceil(ctx.sampleRate * len);
    const buffer = ctx.createBuffer(1, n, ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < n; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 3;
    const src = ctx.createBufferSource();
    src.buffer = buffer;
    const filter = ctx.createBiquadFilter();
    filter.type = "bandpass";
    filter.frequency.value = freq;
    const env = ctx.createGain();
    env.gain.value = gain;
    src.connect(filter).connect(env).connect(this.master);
    src.start(at);
  }
}

const NOTES = { C5: 523.25, E5: 659.25, G5: 783.99, C6: 1046.5, E6: 1318.5, A4: 440, F4: 349.23 };

const CUES = {
  place: (s, t) => s.snap(t),
  home: (s, t) => {
    s.snap(t, 0.04, 3000, 0.6);
    s.tone(t + 0.02, NOTES.E6, 0.18, { gain: 0.35 });
  },
  shuffle: (s, t) => {
    for (let i = 0; i < 9; i += 1) s.snap(t + i * 0.03, 0.035, 1800 + i * 120, 0.7);
  },
  refused: (s, t) => s.tone(t, 150, 0.14, { type: "square", gain: 0.18, to: 110 }),
  tick: (s, t) => s.tone(t, 880, 0.09, { gain: 0.5 }),
  go: (s, t) => {
    s.tone(t, NOTES.C6, 0.35, { gain: 0.45 });
    s.tone(t, NOTES.G5, 0.35, { type: "triangle", gain: 0.35 });
  },
  rival: (s, t) => {
    s.tone(t, NOTES.G5, 0.14, { type: "triangle", gain: 0.4 });
    s.tone(t + 0.12, NOTES.E5, 0.22, { type: "triangle", gain: 0.35 });
  },
  finished: (s, t) => {
    [NOTES.C5, NOTES.E5, NOTES.G5, NOTES.C6].forEach((f, i) => s.tone(t + i * 0.09, f, 0.3, { type: "triangle", gain: 0.45 }));
  },
  over: (s, t) => {
    s.tone(t, NOTES.A4, 0.6, { gain: 0.4 });
    s.tone(t + 0.15, NOTES.F4, 0.8, { type: "triangle", gain: 0.3 });
  },
};

export const sound = new Sound();
export const CUE_NAMES = Object.keys(CUES);
