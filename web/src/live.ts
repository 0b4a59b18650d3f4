// The explorer's live feed (socket.io on this origin, docs/realtime.md): join a room, get its events.
import { useEffect, useRef } from 'preact/hooks';
import { io, type Socket } from 'socket.io-client';

let socket: Socket | null = null;
/** How many mounted hooks use each room: joined at the first, left after the last. */
const users = new Map<string, number>();

function feed(): Socket {
  socket ??= io({ transports: ['websocket'] });
  return socket;
}

/** Calls `onEvent` with each `event` published to `room` while the component is mounted. */
export function useRoom<T>(room: string, event: string, onEvent: (payload: T) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    const s = feed();
    const listener = (payload: T, from: string) => {
      if (from === room) handler.current(payload);
    };
    // A reconnection starts with no rooms: join again on every connect.
    const join = () => void s.emit('join', room);
    s.on(event, listener);
    s.on('connect', join);
    const count = users.get(room) ?? 0;
    users.set(room, count + 1);
    if (count === 0 && s.connected) join();
    return () => {
      s.off(event, listener);
      s.off('connect', join);
      const left = (users.get(room) ?? 1) - 1;
      users.set(room, left);
      if (left === 0) s.emit('leave', room);
    };
  }, [room, event]);
}
