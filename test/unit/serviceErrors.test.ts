/**
 * Every 4xx the sandbox can answer with a field path (its zod validation of every endpoint, and each
 * `fail(4xx, code, sentence, {path})` in its routes) reads in the panel's words once through the node's
 * error text: the headline names a panel label and no API name, code or status; the description keeps
 * the service's sentence, the code and the status.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

import { FIELD_LABELS, fieldLabelOfPath } from '../../nodes/shared/labels';
import { CODE_LABELS, describeServiceError } from '../../nodes/shared/serviceErrors';
import { requestSchemas, zodMessage } from '../../sandbox/schemas';
import { repeatedInDescription } from '../support/repeats';

const LABELS = [...new Set([...Object.values(FIELD_LABELS), ...Object.values(CODE_LABELS)])];
const API_NAMES = Object.keys(FIELD_LABELS).filter((name) => /[A-Z]/.test(name));
const API_WORDS = new RegExp(`\\b(${[...API_NAMES, 'validation_error', 'HTTP \\d{3}', '[a-z]+_[a-z_]+'].join('|')})\\b`);

interface Case {
	name: string;
	payload: { error: string; message: string; path: string; limit?: string };
}

function shapeOf(schema: z.ZodTypeAny): Record<string, z.ZodTypeAny> {
	if (schema instanceof z.ZodEffects) return shapeOf(schema.innerType());
	return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodTypeAny>) : {};
}

/** One wrong value per field of every request schema, each issue formatted the way the sandbox sends it. */
function schemaCases(): Case[] {
	const cases: Case[] = [];
	for (const [endpoint, schema] of Object.entries(requestSchemas)) {
		for (const field of Object.keys(shapeOf(schema as z.ZodTypeAny))) {
			for (const wrong of [{ bogus: true }, 'x'.repeat(3000), -1]) {
				const r = (schema as z.ZodTypeAny).safeParse({ [field]: wrong });
				if (r.success) continue;
				for (const issue of r.error.issues.filter((i) => i.path[0] === field)) {
					const { message, path } = zodMessage(new z.ZodError([issue]));
					cases.push({ name: `${endpoint}.${path} (${issue.message.slice(0, 60)})`, payload: { error: 'validation_error', message, path } });
				}
			}
		}
	}
	return cases;
}

/** Each `fail(4xx, 'code', sentence, { path })` in the sandbox's routes, its template parts filled in. */
function routeCases(): Case[] {
	const dir = join(__dirname, '../../sandbox/routes');
	const sources = [...readdirSync(dir).map((f) => join(dir, f)), join(__dirname, '../../sandbox/engine.ts')];
	const cases: Case[] = [];
	const call = /fail\(\s*(4\d\d),\s*'([a-z_]+)',\s*([`'])([^\n]*?)\3,\s*\{\s*(path|limit):\s*([`'])([^\n]*?)\6/g;
	const fill = (s: string) => s.replace(/\$\{path\}/g, 'wallets[0]').replace(/\$\{[^}]*\}/g, 'x1');
	for (const file of sources) {
		for (const m of readFileSync(file, 'utf8').matchAll(call)) {
			const [, , code, , sentence, kind, , where] = m;
			const payload: Case['payload'] = { error: code, message: fill(sentence), path: kind === 'path' ? fill(where) : '' };
			if (kind === 'limit') payload.limit = 'maxTxUsd';
			cases.push({ name: `${file.split('/').pop()}: ${code} at ${payload.path || '(limit)'}`, payload });
		}
	}
	return cases;
}

const schemaErrors = schemaCases();
const routeErrors = routeCases();

test('the sandbox gives enough errors to check', () => {
	expect(schemaErrors.length).toBeGreaterThan(60);
	expect(routeErrors.length).toBeGreaterThan(15);
});

test.each([...schemaErrors, ...routeErrors].map((c) => [c.name, c.payload] as const))('%s: headline in panel words', (_name, payload) => {
	const { message, description } = describeServiceError(400, payload as never, { body: { toChain: 'ethereum', amountUsd: 5, toAddress: '0xabc' } });
	expect(LABELS.some((label) => message.includes(label))).toBe(true);
	// Values in quotes are what was given or what the service expects (an enum value): not names.
	expect(message.replace(/"[^"]*"/g, '""')).not.toMatch(API_WORDS);
	expect(description).toContain(`API code ${payload.error}`);
	expect(description).toContain('HTTP 400');
	// The service's sentence is said once: as the headline's rule, or quoted in the details.
	expect(repeatedInDescription(message, description)).toEqual([]);
});

test.each([
	['toChain', 'Chain'],
	['wallets[1].address', 'Wallets → item 2 → Address'],
	['transactions[0].hash', 'Transactions → item 1 → Transaction Hash'],
	['definition.payout.tiers[1].from', 'Definition (at payout.tiers[1].from)'],
	['headers.if-match', 'Expected Revision'],
	['somethingNew', 'somethingNew'],
])('the label of %s is %s', (path, label) => {
	expect(fieldLabelOfPath(path)).toBe(label);
});

test('a chain error lists the valid chains; an asset error lists the assets of the chain', () => {
	const assets = [
		{ chain: 'ethereum', symbol: 'USDC' },
		{ chain: 'ethereum', symbol: 'USDT' },
		{ chain: 'base', symbol: 'USDC' },
	];
	const chain = describeServiceError(
		400,
		{ error: 'validation_error', message: 'Unsupported toChain tron', path: 'toChain' },
		{ body: { toChain: 'tron' } },
		assets,
	);
	expect(chain.message).toBe('Chain "tron" is not supported. Valid chains: Base (base), Ethereum (ethereum)');
	expect(chain.apiField).toBe('toChain');
	const asset = describeServiceError(
		400,
		{ error: 'validation_error', message: 'Unsupported asset DAI on ethereum', path: 'asset' },
		{ body: { toChain: 'ethereum', asset: 'DAI' } },
		assets,
	);
	expect(asset.message).toBe('Asset "DAI" is not supported on Ethereum. Assets on Ethereum: USDC, USDT');
});

test('an error without a field keeps the service sentence and puts code and status in the description', () => {
	const e = describeServiceError(500, { error: 'internal_error', message: 'boom' });
	expect(e.message).toBe('The Clearinghouse service failed: boom');
	expect(e.description).toContain('API code internal_error, HTTP 500');
});

test('a read refused for a passing reason is told to retry, without the idempotency key a read does not have', () => {
	const read = describeServiceError(503, { error: 'unavailable' }, { method: 'GET', path: '/payment-orders' });
	expect(read.description).toMatch(/Retry shortly\.$/);
	expect(read.description).not.toMatch(/idempotency key/);
	const write = describeServiceError(503, { error: 'unavailable' }, { method: 'POST', path: '/quotes', body: {} });
	expect(write.description).toMatch(/Retry shortly with the same idempotency key\.$/);
});
