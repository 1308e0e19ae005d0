/**
 * The metadata of a Kubernetes protobuf body (`application/vnd.kubernetes.protobuf`) edited in place, without
 * a schema: the body is the magic `k8s\0` and a runtime.Unknown whose field 2 holds the object, whose field 1
 * is its ObjectMeta (every built-in kind puts metadata first). Only resourceVersion (ObjectMeta field 6) and
 * the annotations (field 12, map entries of key 1 and value 2) are touched; every other byte is kept as sent,
 * so fields this code does not know pass through unchanged. Used by the search proxy to undo what its cache
 * added before an update reaches the member, as Karmada's cluster plugin does after decoding the body.
 */

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const LEN = 2;

interface Field {
  num: number;
  wire: number;
  /** The whole field, tag included. */
  start: number;
  end: number;
  /** The payload of a length-delimited field. */
  value?: Buffer;
}

function readVarint(buf: Buffer, pos: number): [number, number] {
  let out = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++]!;
    out += (b & 0x7f) * mul;
    if (b < 0x80) return [out, pos];
    mul *= 128;
  }
  throw new Error('varint too long');
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** The fields of one message; throws on anything that is not well-formed protobuf. */
function fieldsOf(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    const [tag, p] = readVarint(buf, pos);
    const num = Math.floor(tag / 8);
    const wire = tag % 8;
    pos = p;
    let value: Buffer | undefined;
    if (wire === 0) pos = readVarint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === LEN) {
      const [len, q] = readVarint(buf, pos);
      pos = q + len;
      value = buf.subarray(q, pos);
    } else throw new Error(`unsupported wire type ${wire}`);
    if (pos > buf.length || num === 0) throw new Error('truncated message');
    out.push({ num, wire, start, end: pos, value });
  }
  return out;
}

function lenField(num: number, payload: Buffer): Buffer {
  return Buffer.concat([varint(num * 8 + LEN), varint(payload.length), payload]);
}

/** The message with its first length-delimited field `num` replaced by what `edit` makes of it (undefined: unchanged). */
function editField(msg: Buffer, num: number, edit: (payload: Buffer) => Buffer | undefined): Buffer | undefined {
  const f = fieldsOf(msg).find((x) => x.num === num && x.wire === LEN);
  if (!f) return undefined;
  const next = edit(f.value!);
  if (!next) return undefined;
  return Buffer.concat([msg.subarray(0, f.start), lenField(num, next), msg.subarray(f.end)]);
}

export interface MetaEdit {
  /** The new resourceVersion for the one found, or undefined to keep it. */
  resourceVersion(rv: string): string | undefined;
  /** Annotations to remove. */
  dropAnnotations: readonly string[];
}

/**
 * The body with its metadata edited, or undefined when nothing changed or the body is not a Kubernetes
 * protobuf object (the caller then sends it as it came).
 */
export function editProtobufMeta(body: Buffer, e: MetaEdit): Buffer | undefined {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  try {
    const unknown = editField(body.subarray(MAGIC.length), 2, (raw) =>
      editField(raw, 1, (meta) => {
        let changed = false;
        const parts: Buffer[] = [];
        for (const f of fieldsOf(meta)) {
          if (f.num === 6 && f.wire === LEN) {
            const rv = e.resourceVersion(f.value!.toString('utf8'));
            if (rv !== undefined) {
              parts.push(lenField(6, Buffer.from(rv, 'utf8')));
              changed = true;
              continue;
            }
          }
          if (f.num === 12 && f.wire === LEN) {
            const key = fieldsOf(f.value!).find((x) => x.num === 1 && x.wire === LEN)?.value?.toString('utf8');
            if (key !== undefined && e.dropAnnotations.includes(key)) {
              changed = true;
              continue;
            }
          }
          parts.push(meta.subarray(f.start, f.end));
        }
        return changed ? Buffer.concat(parts) : undefined;
      }),
    );
    return unknown && Buffer.concat([MAGIC, unknown]);
  } catch {
    return undefined;
  }
}
