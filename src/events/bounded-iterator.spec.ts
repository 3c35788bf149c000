import { describe, expect, it } from 'vitest';
import { boundedIterator } from './bounded-iterator.js';

/** A push source like a PubSub iterator: `push` queues for the next pull; counts how often it was returned. */
function source<T>() {
  const queued: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let ended = false;
  const state = { returned: 0 };
  const iterator: AsyncIterator<T> = {
    next: () =>
      new Promise((resolve) => {
        if (queued.length > 0) resolve({ done: false, value: queued.shift()! });
        else if (ended) resolve({ done: true, value: undefined });
        else waiting = resolve;
      }),
    return: async () => {
      state.returned += 1;
      ended = true;
      queued.length = 0;
      waiting?.({ done: true, value: undefined });
      return { done: true, value: undefined };
    },
  };
  const push = (value: T) => {
    if (ended) return;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ done: false, value });
    } else queued.push(value);
  };
  return { iterator, push, state, queued };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const overflow = () => new Error('too slow');

describe('boundedIterator', () => {
  it('keeps up to the limit for a consumer that has not pulled, draining the source meanwhile', async () => {
    const bus = source<number>();
    const bounded = boundedIterator(bus.iterator, { limit: 3, overflow });
    const first = bounded.next();
    bus.push(1);
    expect(await first).toEqual({ done: false, value: 1 });
    for (const value of [2, 3, 4]) bus.push(value);
    await tick();
    // The source's own queue is empty: the values wait here, where they are counted.
    expect(bus.queued).toEqual([]);
    expect(await bounded.next()).toEqual({ done: false, value: 2 });
    expect(await bounded.next()).toEqual({ done: false, value: 3 });
    expect(await bounded.next()).toEqual({ done: false, value: 4 });
    expect(bus.state.returned).toBe(0);
  });

  it('past the limit returns the source at once, then gives the values kept, the error, and the end', async () => {
    const bus = source<number>();
    const bounded = boundedIterator(bus.iterator, { limit: 2, overflow });
    const first = bounded.next();
    bus.push(1);
    await first;
    for (const value of [2, 3, 4, 5]) bus.push(value);
    await tick();
    expect(bus.state.returned).toBe(1);
    expect(await bounded.next()).toEqual({ done: false, value: 2 });
    expect(await bounded.next()).toEqual({ done: false, value: 3 });
    await expect(bounded.next()).rejects.toThrow('too slow');
    expect(await bounded.next()).toEqual({ done: true, value: undefined });
  });

  it('counts only the values the consumer keeps', async () => {
    const bus = source<number>();
    const bounded = boundedIterator(bus.iterator, { limit: 2, keep: (value) => value % 2 === 0, overflow });
    const first = bounded.next();
    for (const value of [1, 2, 3, 5, 7, 4, 9, 6]) bus.push(value);
    expect(await first).toEqual({ done: false, value: 2 });
    await tick();
    expect(bus.state.returned).toBe(0);
    expect(await bounded.next()).toEqual({ done: false, value: 4 });
    expect(await bounded.next()).toEqual({ done: false, value: 6 });
  });

  it('return() ends a waiting next() and returns the source', async () => {
    const bus = source<number>();
    const bounded = boundedIterator(bus.iterator, { limit: 2, overflow });
    const pending = bounded.next();
    await bounded.return!();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(bus.state.returned).toBe(1);
    expect(await bounded.next()).toEqual({ done: true, value: undefined });
  });

  it('a source that fails passes its error on after the values kept', async () => {
    const failing: AsyncIterator<number> = {
      next: (() => {
        let calls = 0;
        return async () => {
          calls += 1;
          if (calls === 1) return { done: false, value: 1 };
          throw new Error('bus down');
        };
      })(),
    };
    const bounded = boundedIterator(failing, { limit: 2, overflow });
    expect(await bounded.next()).toEqual({ done: false, value: 1 });
    await expect(bounded.next()).rejects.toThrow('bus down');
    expect(await bounded.next()).toEqual({ done: true, value: undefined });
  });
});
