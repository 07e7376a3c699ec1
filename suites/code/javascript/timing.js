/**
 * Rate-limiting helpers for UI events (resize, scroll, keystrokes).
 * @module timing
 */

/**
 * Returns a function that runs `fn` only after `wait` ms have passed without another call.
 * @template {(...args: any[]) => void} F
 * @param {F} fn
 * @param {number} [wait=250]
 * @param {{ leading?: boolean }} [options]
 * @returns {F & { cancel(): void, flush(): void }}
 */
export function debounce(fn, wait = 250, { leading = false } = {}) {
  let timer = null;
  let lastArgs = null;
  let lastThis = null;

  function invoke() {
    const args = lastArgs;
    const ctx = lastThis;
    lastArgs = lastThis = null;
    if (args) fn.apply(ctx, args);
  }

  function debounced(...args) {
    const callNow = leading && timer === null;
    lastArgs = args;
    lastThis = this;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (!leading) invoke();
    }, wait);
    if (callNow) invoke();
  }

  debounced.cancel = () => {
    clearTimeout(timer);
    timer = lastArgs = lastThis = null;
  };
  debounced.flush = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
      invoke();
    }
  };
  return debounced;
}

/**
 * Runs `fn` at most once every `interval` ms; the last call in a burst is not lost.
 * @param {Function} fn
 * @param {number} [interval=100]
 */
export function throttle(fn, interval = 100) {
  let last = 0;
  let pending = null;
  return function throttled(...args) {
    const now = Date.now();
    const remaining = interval - (now - last);
    if (remaining <= 0) {
      last = now;
      fn.apply(this, args);
    } else if (!pending) {
      pending = setTimeout(() => {
        last = Date.now();
        pending = null;
        fn.apply(this, args);
      }, remaining);
    }
  };
}

/** Resolves after `ms` milliseconds: `await sleep(1_500)`. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
