import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../src/json/jsonpatch.js';
import { applyOverriders, formatImage, overrideImage, parseImage } from '../../src/core/override.js';
import type { KObject } from '../../src/core/object.js';

describe('image references', () => {
  it.each([
    ['nginx', { hostname: '', repository: 'nginx', tag: '', digest: '' }],
    ['nginx:1.25', { hostname: '', repository: 'nginx', tag: '1.25', digest: '' }],
    ['library/nginx:1.25', { hostname: '', repository: 'library/nginx', tag: '1.25', digest: '' }],
    ['registry.k8s.io/pause:3.9', { hostname: 'registry.k8s.io', repository: 'pause', tag: '3.9', digest: '' }],
    ['localhost:5000/app@sha256:abc', { hostname: 'localhost:5000', repository: 'app', tag: '', digest: 'sha256:abc' }],
  ])('parses %s', (image, want) => {
    expect(parseImage(image)).toEqual(want);
    expect(formatImage(parseImage(image))).toBe(image);
  });
  it('adds, replaces and removes each component', () => {
    expect(overrideImage('docker.io/nginx:1.25', 'Registry', 'add', '.cn')).toBe('docker.io.cn/nginx:1.25');
    expect(overrideImage('docker.io/nginx:1.25', 'Registry', 'replace', 'mirror.local')).toBe('mirror.local/nginx:1.25');
    expect(overrideImage('docker.io/nginx:1.25', 'Registry', 'remove', '')).toBe('nginx:1.25');
    expect(overrideImage('nginx:1.25', 'Repository', 'replace', 'httpd')).toBe('httpd:1.25');
    expect(overrideImage('nginx:1.25', 'Tag', 'remove', '')).toBe('nginx');
    expect(overrideImage('nginx@sha256:aaaa', 'Tag', 'replace', '1.26')).toBe('nginx:1.26');
  });
});

describe('JSON patch', () => {
  it('adds, replaces and removes, and fails naming the path when it does not apply', () => {
    const doc = { a: { b: 1 }, l: [1, 2] };
    expect(applyPatch(doc, [{ op: 'add', path: '/a/c', value: 2 }, { op: 'replace', path: '/a/b', value: 3 }, { op: 'remove', path: '/l/0' }, { op: 'add', path: '/l/-', value: 9 }])).toEqual({ a: { b: 3, c: 2 }, l: [2, 9] });
    expect(doc).toEqual({ a: { b: 1 }, l: [1, 2] });
    expect(() => applyPatch(doc, [{ op: 'replace', path: '/x/y', value: 1 }])).toThrow(/\/x\/y/);
    expect(() => applyPatch(doc, [{ op: 'remove', path: '/a/zz' }])).toThrow(/missing/);
  });
});

describe('overriders of one rule', () => {
  const pod: KObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx:1', command: ['a'] }], initContainers: [{ name: 'i', image: 'busybox' }] },
  };
  it('runs image, command, args, labels, annotations, field, plaintext in that order', () => {
    const out = applyOverriders(pod, {
      plaintext: [{ path: '/metadata/labels/order', operator: 'replace', value: 'plaintext-last' }],
      labelsOverrider: [{ operator: 'add', value: { order: 'labels' } }],
      imageOverrider: [{ component: 'Tag', operator: 'replace', value: '2' }],
      commandOverrider: [{ containerName: 'c', operator: 'add', value: ['b'] }],
      argsOverrider: [{ containerName: 'c', operator: 'add', value: ['--x'] }],
    });
    expect(out.metadata.labels).toEqual({ order: 'plaintext-last' });
    expect(out.spec.containers[0]).toEqual({ name: 'c', image: 'nginx:2', command: ['a', 'b'], args: ['--x'] });
    expect(out.spec.initContainers[0].image).toBe('busybox:2');
    expect(pod.spec.containers[0].image).toBe('nginx:1');
  });
});
