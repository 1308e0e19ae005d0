/** RFC 6902 JSON Patch: the diff a mutating webhook answers with lives with the applier in src/json. */
export { createPatch } from '../json/jsonpatch.js';
