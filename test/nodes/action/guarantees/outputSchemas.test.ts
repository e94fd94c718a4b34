/**
 * The output schemas shipped in nodes/Clearinghouse/__schema__ (n8n shows their fields to the next
 * node before this one has run) against real outputs: every operation runs against the sandbox,
 * over orders in several states, and every item must fit its schema, so the schemas cannot drift
 * from what the node returns. `UPDATE_OUTPUT_SCHEMAS=1` rewrites the files from these outputs.
 * @slow: runs every operation over orders taken through funding, netting and refunds; test:fast leaves it out (scripts/test-fast.sh).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { Clearinghouse } from '../../../../nodes/Clearinghouse/Clearinghouse.node';
import { resources } from '../../../../nodes/Clearinghouse/actions/router';
import { infer, merge, problems, readSchema, schemaFile, writeSchema, type Schema } from '../../../support/outputSchema';
import { waitFor } from '../../../../harness/wait';
import { walletOf } from '../../../../harness/sandboxClient';
import { json, payment, useEnv } from '../support';

const NODE_DIR = join(__dirname, '..', '..', '..', '..', 'nodes', 'Clearinghouse');
/** The node's one version: n8n's editor asks for its folder (v1.0.0). */
const VERSIONS = [`${String(new Clearinghouse().description.version)}.0.0`];
const update = process.env.UPDATE_OUTPUT_SCHEMAS === '1';

jest.setTimeout(120_000);

// One sandbox for the file: the samples build on each other's orders.
const env = useEnv({ reset: false });
const outputs = new Map<string, IDataObject[]>();

async function sample(resource: string, operation: string, parameters: Record<string, unknown> = {}): Promise<IDataObject[]> {
	const items = json(await env.run({ resource, operation, ...parameters } as any));
	outputs.set(`${resource}/${operation}`, [...(outputs.get(`${resource}/${operation}`) ?? []), ...items]);
	return items;
}
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

async function waitForStatus(id: string, status: string): Promise<void> {
	await waitFor(async () => (await env.op('GET', `/sandbox/payment-orders/${id}`)).status === status, 60_000, `order ${id} to be ${status}`, 200);
}

async function fund(id: string, amountUsd: number): Promise<void> {
	const { transactionHash } = await env.op('POST', '/deposits', {
		paymentOrderId: id,
		sender: walletOf(env.alice, 'ethereum'),
		chain: 'ethereum',
		asset: 'USDC',
		amountUsd,
	});
	await sample('paymentOrder', 'submitTransactions', {
		paymentOrderId: byId(id),
		transactions: { transaction: [{ hash: transactionHash, chain: 'ethereum' }] },
	});
	await waitForStatus(id, 'FUNDED');
}

beforeAll(async () => {
	const bobEth = walletOf(env.bob, 'ethereum');
	await sample('supportedAsset', 'getMany');
	await sample('account', 'getLimits');
	await sample('account', 'checkBatch', { amountUsd: '25' });
	await sample('depositAddress', 'getMany');
	await sample('quote', 'create', { toChain: 'ethereum', asset: 'USDC', amountUsd: '25', additionalFields: { toAddress: bobEth, name: 'schema quote' } });
	await sample('user', 'createOrUpdate', {
		label: 'schema-dave',
		wallets: { wallet: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }] },
	});
	const [ruleset] = await sample('receiveRuleset', 'create', {
		idempotencyKey: 'schema-ruleset-1',
		deliveredAsset: 'USDC',
		deliveredChain: 'base',
		toAddress: walletOf(env.bob, 'base'),
		additionalFields: { name: 'schema ruleset' },
	});
	await sample('receiveRuleset', 'rename', { rulesetId: ruleset.id, name: 'schema ruleset renamed' });
	const definition = {
		measure: { type: 'daily_balance', metricKey: 'balance_usd' },
		condition: { type: 'always' },
		payout: { type: 'fixed', amount: '5.00' },
		limits: [],
	};
	await sample('rewardRule', 'create', { idempotencyKey: 'schema-rule-1', name: 'schema rule', description: 'daily', definition: JSON.stringify(definition) });
	await sample('rewardRule', 'getMany', { status: 'active', returnAll: true });
	await sample('rewardRule', 'getRuleBlocks');

	const [endpoint] = await sample('webhookEndpoint', 'create', { url: 'https://127.0.0.1:9/hooks', description: 'schema', eventTypes: ['payment_order'] });
	// Orders in several states: settled, refunded, waiting.
	const [settled] = await sample('paymentOrder', 'create', payment(env, { amountUsd: '10', memo: 'INV-S1' }));
	const [refunded] = await sample('paymentOrder', 'create', payment(env, { amountUsd: '11', memo: 'INV-S2' }));
	const [waiting] = await sample('paymentOrder', 'create', payment(env, { amountUsd: '12', memo: 'INV-S3' }));
	// A Business Key run again: the replayed answer, and after a changed expiry the order found by its key.
	const replay = payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'schema-replay-1', amountUsd: '13' });
	await sample('paymentOrder', 'create', replay);
	await sample('paymentOrder', 'create', replay);
	await sample('paymentOrder', 'create', { ...replay, expiresInMinutes: 90 });
	const idOf = (created: IDataObject) => String(created.paymentOrderId ?? created.id);
	await fund(idOf(settled), 10);
	await fund(idOf(refunded), 11);
	await sample('paymentOrder', 'setReturnDetails', {
		idempotencyKey: 'schema-returns-1',
		paymentOrderId: byId(idOf(refunded)),
		userId: env.alice.id,
		wallets: { wallet: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] },
	});
	await sample('paymentOrder', 'cancel', { paymentOrderId: byId(idOf(refunded)), reason: 'schema refund' });
	await sample('paymentOrder', 'cancel', { paymentOrderId: byId(idOf(waiting)), reason: 'schema cancel' });
	await env.op('POST', '/netting/close', {});
	await waitForStatus(idOf(settled), 'DISTRIBUTED');
	await waitForStatus(idOf(refunded), 'REFUNDED');
	for (const created of [settled, refunded, waiting]) await sample('paymentOrder', 'get', { paymentOrderId: byId(idOf(created)) });
	await sample('paymentOrder', 'getMany', { returnAll: true });
	await sample('paymentOrder', 'findByKeys', { businessKey: String(settled.idempotencyKey) });
	await sample('paymentOrder', 'findByKeys', { businessKey: 'schema-missing-key' });

	await env.op('POST', '/webhooks/flush', {});
	const deliveries = await sample('webhookDelivery', 'getMany', { returnAll: true });
	await sample('webhookDelivery', 'get', { deliveryId: deliveries[0].id });
	await sample('webhookDelivery', 'replay', { deliveryId: deliveries[0].id });
	await sample('webhookEndpoint', 'get', { endpointId: byId(String(endpoint.id)) });
	await sample('webhookEndpoint', 'getMany', { returnAll: true });
	await sample('webhookEndpoint', 'update', { endpointId: byId(String(endpoint.id)), updateFields: { description: 'schema, updated' } });
	await sample('webhookEndpoint', 'rotateSecret', { endpointId: byId(String(endpoint.id)) });
	await sample('webhookEndpoint', 'promoteSecret', { endpointId: byId(String(endpoint.id)) });
	await sample('webhookEndpoint', 'sendTestEvent', { endpointId: byId(String(endpoint.id)) });
	await sample('webhookEndpoint', 'recover', { scope: 'one', endpointId: byId(String(endpoint.id)) });
	await sample('webhookEndpoint', 'recover', { scope: 'all' });
	await sample('webhookEndpoint', 'delete', { endpointId: byId(String(endpoint.id)) });

	if (update) {
		for (const [key, items] of outputs) {
			const [resource, operation] = key.split('/');
			for (const version of VERSIONS) {
				writeSchema(
					schemaFile(NODE_DIR, version, resource, operation),
					items.map(infer).reduce((a, b) => merge(a, b)),
				);
			}
		}
	}
});

const operations = Object.entries(resources).flatMap(([resource, { operations: ops }]) =>
	Object.keys(ops)
		.filter((operation) => typeof (ops[operation] as { execute?: unknown })?.execute === 'function')
		.map((operation) => `${resource}/${operation}`),
);

test.each(VERSIONS)('every operation ran and has a schema file in v%s, and no schema file is left over', (VERSION) => {
	expect([...outputs.keys()].sort()).toEqual([...operations].sort());
	expect(readdirSync(join(NODE_DIR, '__schema__'))).toEqual([`v${VERSION}`]);
	const shipped = readdirSync(join(NODE_DIR, '__schema__', `v${VERSION}`), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map(
			(entry) =>
				`${join(entry.parentPath, entry.name)
					.split(`v${VERSION}/`)[1]
					.replace(/\.json$/, '')}`,
		);
	expect(shipped.sort()).toEqual([...operations].sort());
});

test.each(VERSIONS.flatMap((version) => operations.map((key) => [key, version])))('%s (v%s): every real output fits its schema', (key, VERSION) => {
	const [resource, operation] = key.split('/');
	const schema = readSchema(schemaFile(NODE_DIR, VERSION, resource, operation)) as Schema;
	expect(schema).toMatchObject({ type: 'object', version: 1 });
	const items = outputs.get(key) ?? [];
	expect(items.length).toBeGreaterThan(0);
	expect(items.flatMap((item) => problems(schema, item))).toEqual([]);
});
