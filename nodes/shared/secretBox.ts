import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'crypto';

/**
 * AES-256-GCM box for a secret kept in a workflow's static data (stored in clear, shown to editors, exported).
 * The key is derived (HKDF-SHA256) from the credential's API key, which n8n keeps encrypted, and the scope
 * (workflow and node id) is in the derivation and the authenticated data: a copied box does not open.
 */
export interface SecretScope {
	apiKey: string;
	workflowId: string;
	nodeId: string;
}

const FORMAT = 'chbox1';
const SALT = 'n8n-nodes-clearinghouse/secret-box/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function context(scope: SecretScope): string {
	// JSON keeps the parts apart (no id can be made to look like another pair).
	return JSON.stringify(['webhook-secret', scope.workflowId, scope.nodeId]);
}

function keyFor(scope: SecretScope): Buffer {
	return Buffer.from(hkdfSync('sha256', scope.apiKey, SALT, context(scope), 32));
}

function usable(scope: SecretScope): boolean {
	return typeof scope.apiKey === 'string' && scope.apiKey !== '';
}

/** `chbox1.<iv>.<ciphertext>.<tag>` (base64url): a fresh random IV every time. */
export function sealSecret(secret: string, scope: SecretScope): string {
	if (!usable(scope)) throw new Error('Cannot seal a secret without an API key');
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', keyFor(scope), iv);
	cipher.setAAD(Buffer.from(context(scope), 'utf8'));
	const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	return [FORMAT, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The secret, or undefined when the box is malformed, tampered with, or sealed under another key or scope. */
export function openSecret(box: unknown, scope: SecretScope): string | undefined {
	if (typeof box !== 'string' || !usable(scope)) return undefined;
	const parts = box.split('.');
	if (parts.length !== 4 || parts[0] !== FORMAT) return undefined;
	const [iv, ciphertext, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
	if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
	try {
		const decipher = createDecipheriv('aes-256-gcm', keyFor(scope), iv, { authTagLength: TAG_BYTES });
		decipher.setAAD(Buffer.from(context(scope), 'utf8'));
		decipher.setAuthTag(tag);
		return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
	} catch {
		return undefined;
	}
}

/** True for a string in the box format (whether or not it opens with a given key). */
export function isSealed(value: unknown): value is string {
	return typeof value === 'string' && value.startsWith(`${FORMAT}.`);
}
