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
	const keyed = describeServiceError(503, { error: 'unavailable' }, { method: 'POST', path: '/rulesets', body: { idempotencyKey: 'k-1' } });
	expect(keyed.description).toMatch(/Retry shortly with the same idempotency key\.$/);
	// A write without a key (a quote): retrying could act twice, and no key makes it safe.
	const unkeyed = describeServiceError(503, { error: 'unavailable' }, { method: 'POST', path: '/quotes', body: {} });
	expect(unkeyed.description).toMatch(/may or may not have acted on this request\. Check with Get before sending it again\.$/);
	expect(unkeyed.description).not.toMatch(/idempotency key/);
});

describe('403, 409 and 412 are said for what this request sent: one sentence of cause, one of action', () => {
	/** The hint after the ids in the description (the service's words are bare: no code, no path). */
	const hint = (status: number, request: Parameters<typeof describeServiceError>[2]) =>
		describeServiceError(status, { error: 'Declined by the server' }, request).description.replace(/^\(HTTP \d{3}\)\. /, '');
	const sentences = (t: string) => t.split(/(?<=\.) (?=[A-Z])/);
	const sub = '7d1c2b3a-0000-4000-8000-000000000001';

	test.each([
		[
			'403, a read naming a Subaccount ID',
			403,
			{ method: 'GET', qs: { subaccountId: sub } },
			[`Subaccount ${sub} is not a direct child subaccount`, 'Correct the Subaccount ID, or leave it empty to read'],
			['paused', 'KYB', 'idempotency'],
		],
		[
			'403, a write naming a Subaccount ID',
			403,
			{ method: 'POST', body: { subaccountId: sub, idempotencyKey: 'k' } },
			['or it is paused', 'Correct the Subaccount ID, or run this again once the subaccount is active'],
			['idempotency'],
		],
		// 403 naming no Subaccount ID: said in the credential Test's words (test/unit/credentialWords.test.ts).
		[
			'409, a keyed write',
			409,
			{ method: 'POST', body: { idempotencyKey: 'PAY-7' } },
			['The idempotency key PAY-7 was already used for another request', 'a different request needs a new key'],
			['AWAITING_FUNDS', 'revision', 'Subaccount'],
		],
		[
			'409, a write without a key',
			409,
			{ method: 'POST', body: { reason: 'r' } },
			['not in a state that allows it now', 'Read it with Get'],
			['idempotency', 'revision', 'Subaccount'],
		],
		[
			'412, a Subaccount ID',
			412,
			{ method: 'GET', qs: { subaccountId: sub } },
			[`The custody wallet of subaccount ${sub} is not provisioned yet`],
			['idempotency', 'for example'],
		],
		['412, the own account', 412, { method: 'GET' }, ["The custody wallet of the credential's account is not provisioned yet"], ['Subaccount', 'for example']],
	] as const)('%s', (_name, status, request, has, hasNot) => {
		const said = hint(status, request as never);
		expect(sentences(said)).toHaveLength(2);
		for (const part of has) expect(said).toContain(part);
		for (const part of hasNot) expect(said).not.toContain(part);
	});
});

test('who pays whom is told from the order the node sent (a sender and a recipient), not from the path it went to', () => {
	const order = { fromUserId: 'u-1', toAddress: '0xabc', toChain: 'ethereum', asset: 'USDC', amountUsd: 5 };
	for (const path of [undefined, '/payment', '/v2/orders']) {
		const e = describeServiceError(400, { error: 'Declined by the server, status 400' }, { method: 'POST', path, body: order });
		expect(e.message).toMatch(/^The service refused this order's Sender User ID "u-1" or Recipient Address "0xabc" on Ethereum/);
	}
	// A quote sends a recipient but no sender: not an order.
	const quote = describeServiceError(
		400,
		{ error: 'Declined by the server, status 400' },
		{ method: 'POST', body: { toAddress: '0xabc', toChain: 'ethereum' } },
	);
	expect(quote.message).not.toMatch(/Sender User ID/);
});

test('a refused order is still explained when the account limits read after it hold a value the node cannot read exactly', () => {
	const order = { fromUserId: 'u-1', toAddress: '0xabc', toChain: 'ethereum', asset: 'USDC', amountUsd: 5 };
	const unreadable = { maxTxUsd: { limit: 'about 100', used: 0 } };
	const e = describeServiceError(400, { error: 'Declined by the server, status 400' }, { method: 'POST', body: order }, undefined, unreadable);
	// The refusal itself, not a limit it could not read (nothing was paid either way).
	expect(e.message).toMatch(/^The service refused this order's Sender User ID "u-1"/);
	expect(e.message).not.toMatch(/maxTxUsd/);
});
