// A server-sent-events client for the dashboard's tests: every message and comment it has read so far.
import { request, type IncomingMessage } from 'node:http';

export interface SseStream {
  messages: { event: string; data: string }[];
  comments: string[];
  response(): IncomingMessage | undefined;
  close(): void;
}

export function openStream(url: string): SseStream {
  const messages: SseStream['messages'] = [];
  const comments: string[] = [];
  let buffer = '';
  let response: IncomingMessage | undefined;
  const req = request(url, (res) => {
    response = res;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        if (lines.every((l) => l.startsWith(':'))) comments.push(...lines);
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
        if (event) messages.push({ event, data: lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n') });
      }
    });
  });
  // a stream closed by the test or by the server's stop is not an error of the test
  req.on('error', () => undefined);
  req.end();
  return { messages, comments, response: () => response, close: () => req.destroy() };
}
