// A tiny store: the state, changed only by dispatching a message through the reducer;
// subscribers hear of each change with the state before it and the message.

export function createStore(reduce, state) {
  const listeners = new Set();
  return {
    get: () => state,
    dispatch(message) {
      const before = state;
      state = reduce(state, message);
      if (state !== before) for (const listener of [...listeners]) listener(state, before, message);
      return state;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
