/**
 * `exec` over the WebSocket protocol kubectl speaks to `pods/exec` (v5.channel.k8s.io, else v4): every
 * binary message starts with its channel, 0 stdin, 1 stdout, 2 stderr, 3 the final Status, 4 terminal
 * size, 255 close (v5: "no more stdin"). Through the host's cluster proxy the upgrade is passed to the member.
 */
import type { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';
import { readBody, RequestTimeoutError, ServerError, statusOf, type FleetClient, type Query } from './client.js';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

export interface ExecStreams {
  stdin?: Readable;
  stdout: Writable;
  stderr: Writable;
  /** The terminal's size now and when it changes (`-t` on a terminal). */
  size?: () => { width: number; height: number } | undefined;
  onResize?: (listener: () => void) => () => void;
}

/** The command's exit status from the Status on channel 3: 0, the remote command's own, or 1 with the message. */
export function exitOf(status: { status?: string; reason?: string; message?: string; details?: { causes?: Array<{ reason?: string; message?: string }> } } | undefined): { code: number; message?: string } {
  if (!status || status.status === 'Success') return { code: 0 };
  if (status.reason === 'NonZeroExitCode') {
    const n = Number(status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message);
    if (Number.isInteger(n)) return { code: n, message: `command terminated with exit code ${n}` };
  }
  return { code: 1, message: status.message ?? 'the command failed' };
}

/**
 * Runs `command` in the pod's container and streams it; resolves with the exit status. An upgrade the
 * server refuses is its Status, thrown as a ServerError (kubectl prints it as the server's error).
 */
export async function execInPod(client: FleetClient, path: string, query: Query, io: ExecStreams): Promise<{ code: number; message?: string }> {
  const url = client.url(path, query);
  const o = await client.requestOptions('GET', url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url, [...EXEC_PROTOCOLS], {
    ca: o.ca,
    cert: o.cert,
    key: o.key,
    rejectUnauthorized: o.rejectUnauthorized,
    headers: o.headers as Record<string, string>,
    // --request-timeout bounds the upgrade, not the command: a shell may run for hours.
    handshakeTimeout: client.timeoutMs > 0 ? client.timeoutMs : undefined,
  });
  return new Promise((resolve, reject) => {
    let status: Parameters<typeof exitOf>[0];
    let errorText = '';
    const cleanups: Array<() => void> = [];
    const done = () => cleanups.forEach((c) => c());
    ws.on('unexpected-response', (_req, res) => {
      readBody(res).then((body) => {
        done();
        reject(new ServerError(statusOf(res.statusCode ?? 0, body)));
      }, reject);
    });
    ws.on('error', (e) => {
      done();
      // ws's own words for it ("Opening handshake has timed out") told as every other request's timeout
      const timedOut = client.timeoutMs > 0 && ws.readyState !== WebSocket.OPEN && /handshake has timed out/i.test(e.message);
      reject(timedOut ? new RequestTimeoutError('GET', `${url.pathname}${url.search}`, client.timeoutMs) : e);
    });
    ws.on('open', () => {
      const v5 = ws.protocol === EXEC_PROTOCOLS[0];
      const send = (channel: number, data: Buffer | string) => ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(data)]));
      if (io.size) {
        const resize = () => {
          const s = io.size!();
          if (s) send(RESIZE, JSON.stringify({ Width: s.width, Height: s.height }));
        };
        resize();
        if (io.onResize) cleanups.push(io.onResize(resize));
      }
      if (io.stdin) {
        const stdin = io.stdin;
        const onData = (chunk: Buffer | string) => send(STDIN, chunk);
        // v4 has no way to say stdin ended: the command then sees it open until it exits.
        const onEnd = () => v5 && ws.readyState === WebSocket.OPEN && ws.send(Buffer.from([CLOSE, STDIN]));
        stdin.on('data', onData);
        stdin.on('end', onEnd);
        cleanups.push(() => {
          stdin.off('data', onData);
          stdin.off('end', onEnd);
          stdin.pause();
        });
      }
    });
    ws.on('message', (data: Buffer, isBinary) => {
      const buf = isBinary ? data : Buffer.from(data.toString('utf8'));
      if (buf.length === 0) return;
      const body = buf.subarray(1);
      if (buf[0] === STDOUT) io.stdout.write(body);
      else if (buf[0] === STDERR) io.stderr.write(body);
      else if (buf[0] === ERROR) errorText += body.toString('utf8');
    });
    ws.on('close', () => {
      done();
      if (errorText) {
        try {
          status = JSON.parse(errorText);
        } catch {
          // v1-style error channel: the message itself.
          return resolve({ code: 1, message: errorText.trim() });
        }
      }
      resolve(exitOf(status));
    });
  });
}
