// A server-sent-events client for the dashboard's tests: every message and comment it has read so far.
import { request, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';

export interface SseStream {
  messages: { event: string; data: string }[];
  comments: string[];
  response(): IncomingMessage | undefined;
  close(): void;
}

/** A URL, or request options (an apiserver's, with its credentials: `kubeConfigUpstream(...).options`). */
export function openStream(target: string | RequestOptions): SseStream {
  const messages: SseStream['messages'] = [];
  const comments: string[] = [];
  let buffer = '';
  let response: IncomingMessage | undefined;
  const onResponse = (res: IncomingMessage) => {
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
  };
  const req = typeof target === 'string' ? request(target, onResponse) : target.protocol === 'http:' ? request(target, onResponse) : httpsRequest(target, onResponse);
  // a stream closed by the test or by the server's stop is not an error of the test
  req.on('error', () => undefined);
  req.end();
  return { messages, comments, response: () => response, close: () => req.destroy() };
}
