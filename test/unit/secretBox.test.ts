/** The trigger's secret box on its own: AES-256-GCM under a key derived from the API key and scope. */
import { isSealed, openSecret, sealSecret, type SecretScope } from '../../nodes/shared/secretBox';

const scope: SecretScope = { apiKey: 'sk_live_0123456789abcdef', workflowId: 'wf-1', nodeId: 'node-1' };
const secret = `whsec_${'ab'.repeat(32)}`;

describe('secret box', () => {
	it('opens what it sealed, and the sealed form does not contain the secret', () => {
		const box = sealSecret(secret, scope);
		expect(isSealed(box)).toBe(true);
		expect(box).not.toContain(secret);
		expect(box).not.toContain('whsec_');
		expect(box).not.toContain(scope.apiKey);
		expect(openSecret(box, scope)).toBe(secret);
	});

	it('uses a fresh IV every time (the same secret seals differently)', () => {
		const boxes = new Set(Array.from({ length: 50 }, () => sealSecret(secret, scope)));
		expect(boxes.size).toBe(50);
		for (const box of boxes) expect(openSecret(box, scope)).toBe(secret);
	});

	it('does not open under another API key, workflow or node', () => {
		const box = sealSecret(secret, scope);
		expect(openSecret(box, { ...scope, apiKey: 'sk_live_other' })).toBeUndefined();
		expect(openSecret(box, { ...scope, workflowId: 'wf-2' })).toBeUndefined();
		expect(openSecret(box, { ...scope, nodeId: 'node-2' })).toBeUndefined();
		// The parts are kept apart: moving a character between workflow and node id changes the key.
		expect(openSecret(box, { ...scope, workflowId: 'wf-1n', nodeId: 'ode-1' })).toBeUndefined();
	});

	it('refuses a box changed anywhere (GCM authenticates IV, ciphertext and tag)', () => {
		const box = sealSecret(secret, scope);
		const parts = box.split('.');
		for (let i = 1; i < parts.length; i++) {
			const bytes = Buffer.from(parts[i], 'base64url');
			for (const at of [0, bytes.length - 1]) {
				const changed = Buffer.from(bytes);
				changed[at] ^= 0x01;
				const tampered = [...parts];
				tampered[i] = changed.toString('base64url');
				expect(openSecret(tampered.join('.'), scope)).toBeUndefined();
			}
		}
	});

	it('refuses malformed input without throwing', () => {
		for (const value of [undefined, null, 42, {}, '', secret, 'chbox1', 'chbox1.a.b', 'chbox1.a.b.c', 'chbox2.a.b.c.d', `${sealSecret(secret, scope)}.x`]) {
			expect(openSecret(value, scope)).toBeUndefined();
		}
		expect(isSealed(secret)).toBe(false);
	});

	it('needs an API key: nothing is sealed or opened under an empty one', () => {
		expect(() => sealSecret(secret, { ...scope, apiKey: '' })).toThrow(/API key/);
		expect(openSecret(sealSecret(secret, scope), { ...scope, apiKey: '' })).toBeUndefined();
	});

	it('keeps any secret text exactly (UTF-8)', () => {
		for (const s of ['x', 'ü✓ secret with spaces', 'a'.repeat(4096)]) expect(openSecret(sealSecret(s, scope), scope)).toBe(s);
	});
});
