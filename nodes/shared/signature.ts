import { createHmac, timingSafeEqual } from 'crypto';

/** Deliveries older or newer than this (seconds) are refused, so a captured request cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureFailure =
	| 'missing_secret'
	| 'missing_header'
	| 'malformed_header'
	| 'missing_timestamp'
	| 'missing_signature'
	| 'timestamp_out_of_tolerance'
	| 'signature_mismatch';

export type SignatureCheck = { valid: true; timestamp: number } | { valid: false; reason: SignatureFailure };

export interface ParsedSignatureHeader {
	timestamp: number;
	signatures: string[];
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Parses `t=<unix seconds>,v1=<hex>[,v1=<hex>]` strictly: exactly one `t`, at least one `v1`,
 * nothing malformed. Other `v<n>` schemes are ignored so a future scheme does not break us.
 */
export function parseSignatureHeader(header: string | string[] | undefined): ParsedSignatureHeader | SignatureFailure {
	if (Array.isArray(header)) {
		if (header.length !== 1) return header.length === 0 ? 'missing_header' : 'malformed_header';
		header = header[0];
	}
	if (typeof header !== 'string' || header.trim() === '') return 'missing_header';
	let timestamp: number | undefined;
	const signatures: string[] = [];
	for (const part of header.split(',')) {
		const eq = part.indexOf('=');
		if (eq <= 0) return 'malformed_header';
		const key = part.slice(0, eq).trim();
		const value = part.slice(eq + 1).trim();
		if (key === 't') {
			if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return 'malformed_header';
			timestamp = Number(value);
		} else if (key === 'v1') {
			if (!HEX_SHA256.test(value)) return 'malformed_header';
			signatures.push(value);
		} else if (!/^v\d+$/.test(key)) {
			return 'malformed_header';
		}
	}
	if (timestamp === undefined) return 'missing_timestamp';
	if (signatures.length === 0) return 'missing_signature';
	return { timestamp, signatures };
}

/** HMAC-SHA256 hex of `<t>.<raw body>`, keyed by the secret as UTF-8 text (not decoded). */
export function computeSignature(secret: string, timestamp: number, rawBody: Buffer | string): string {
	return createHmac('sha256', Buffer.from(secret, 'utf8'))
		.update(`${timestamp}.`, 'utf8')
		.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
		.digest('hex');
}

/** Builds a header value the way the service does (used by tests and the sandbox's counterpart checks). */
export function signatureHeader(secrets: string[], timestamp: number, rawBody: Buffer | string): string {
	return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(s, timestamp, rawBody)}`)].join(',');
}

export interface VerifyInput {
	header: string | string[] | undefined;
	rawBody: Buffer | string;
	/** The endpoint secret; more than one while the user is moving between secrets. */
	secrets: Array<string | undefined>;
	/** Current time in milliseconds. */
	now?: number;
	toleranceSeconds?: number;
}

/**
 * Fails closed: no secret, a malformed header, a stale timestamp or no matching `v1` is invalid.
 * The result says why, never what was expected.
 */
export function verifySignature(input: VerifyInput): SignatureCheck {
	const secrets = input.secrets.filter((s): s is string => typeof s === 'string' && s !== '');
	if (secrets.length === 0) return { valid: false, reason: 'missing_secret' };
	const parsed = parseSignatureHeader(input.header);
	if (typeof parsed === 'string') return { valid: false, reason: parsed };
	const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
	const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
	if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) {
		return { valid: false, reason: 'timestamp_out_of_tolerance' };
	}
	let matched = false;
	// Every candidate is compared in full, so timing says nothing about which one matched.
	for (const secret of secrets) {
		const expected = Buffer.from(computeSignature(secret, parsed.timestamp, input.rawBody), 'hex');
		for (const signature of parsed.signatures) {
			if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
		}
	}
	return matched ? { valid: true, timestamp: parsed.timestamp } : { valid: false, reason: 'signature_mismatch' };
}
