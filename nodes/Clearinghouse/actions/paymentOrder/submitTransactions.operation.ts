/**
 * POST /payment-orders/{id}/transactions. Not keyed by the API, but attributing a hash is safe to
 * repeat by nature (the same hash matches the same transfer once), so the transport may repeat it
 * and the node re-submits on `transfersProcessed: 0` when asked to.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { sleep, updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { chainField, DYNAMIC_OPTIONS_HINT, optionsCollection, paymentOrderLocator, subaccountOrderOption } from '../fields';
import { operationError, locatorValue, optionalText, subaccountQuery } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [
	paymentOrderLocator,
	{
		displayName: 'Transactions',
		name: 'transactions',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Transaction',
		required: true,
		default: {},
		description: 'Funding transactions sent from an activated wallet of the sender to the deposit address of the order; one funding transfer per transaction',
		options: [
			{
				displayName: 'Transaction',
				name: 'transaction',
				values: [
					{
						displayName: 'Transaction Hash',
						name: 'hash',
						type: 'string',
						default: '',
						placeholder: 'e.g. 0x9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
						description: 'On-chain hash of the funding transaction',
					},
					chainField({ name: 'chain', description: `Chain of the transaction. ${DYNAMIC_OPTIONS_HINT}.` }),
				],
			},
		],
	},
	optionsCollection([
		dryRunOption,
		{
			displayName: 'Retries While Not Indexed',
			name: 'indexRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 0,
			description: 'How many more times to submit when the service processed no transfer (its chain indexer may not have seen the transaction yet)',
		},
		{
			displayName: 'Seconds Between Retries',
			name: 'indexRetryDelaySeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 60 },
			default: 5,
			description: 'How long to wait before submitting again',
		},
		subaccountOrderOption,
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['submitTransactions'] } }, properties);

const NOT_INDEXED_HINT =
	'The service processed no transfer: its chain indexer has probably not seen the transaction yet. Submit again in a few seconds (Options → Retries While Not Indexed), and check that the transaction went from an activated wallet of the sender to the deposit address of this order.';

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'paymentOrderId', itemIndex, 'Payment Order');
	const entries = ((ctx.getNodeParameter('transactions', itemIndex, {}) as IDataObject).transaction as IDataObject[] | undefined) ?? [];
	const transactions = entries.map((entry, n) => {
		const hash = optionalText(entry.hash);
		const chain = optionalText(entry.chain);
		if (!hash || !chain) throw operationError(ctx, `Transaction #${n + 1} needs both a hash and a chain`, itemIndex);
		return { hash, chain };
	});
	if (transactions.length === 0) throw operationError(ctx, 'Transactions: add at least one transaction hash', itemIndex);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const retries = numberOption(ctx, options.indexRetries ?? 0, 'Retries While Not Indexed', { min: 0, max: 10, whole: true }, itemIndex);
	const delayMs = numberOption(ctx, options.indexRetryDelaySeconds ?? 5, 'Seconds Between Retries', { min: 1, max: 60 }, itemIndex) * 1000;
	const subaccount = subaccountQuery(options);

	let attempts = 0;
	for (;;) {
		attempts++;
		const response = await apiRequest(ctx, {
			method: 'POST',
			path: `/payment-orders/${encodeURIComponent(id)}/transactions`,
			body: { transactions, ...subaccount },
			idempotent: true,
			itemIndex,
		});
		const data = (response.data as IDataObject | undefined) ?? {};
		const processed = Number(data.transfersProcessed ?? 0);
		const result: IDataObject = {
			paymentOrderId: data.paymentOrderId ?? id,
			transfersProcessed: processed,
			indexed: processed > 0,
			attempts,
			message: response.message,
		};
		if (processed > 0) return result;
		// 0 can also mean the hashes were attributed already (by an earlier submission whose answer
		// was lost, or another workflow): the order says so.
		const attributed = await attributedHashes(ctx, id, itemIndex, subaccount);
		const already = transactions.map((t) => t.hash).filter((hash) => attributed.has(normalizeHash(hash)));
		if (already.length === transactions.length) {
			return { ...result, indexed: true, alreadyAttributed: already };
		}
		if (attempts > retries) {
			return {
				...result,
				alreadyAttributed: already,
				notIndexed: transactions.map((t) => t.hash).filter((hash) => !attributed.has(normalizeHash(hash))),
				hint: NOT_INDEXED_HINT,
			};
		}
		await sleep(delayMs);
	}
}

/**
 * An option's number within the panel's range, or an error naming it: an expression's text or NaN would
 * otherwise make the retry loop endless (NaN is never exceeded) and its wait zero.
 */
function numberOption(ctx: IExecuteFunctions, value: unknown, label: string, rule: { min: number; max: number; whole?: boolean }, itemIndex: number): number {
	const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
	if (Number.isFinite(n) && n >= rule.min && n <= rule.max && (!rule.whole || Number.isInteger(n))) return n;
	const kind = rule.whole ? 'a whole number' : 'a number';
	throw operationError(ctx, `${label} must be ${kind} from ${rule.min} to ${rule.max} (got ${JSON.stringify(value) ?? String(value)})`, itemIndex);
}

/** Transaction hashes already attributed to the order (its inbound transfers). */
async function attributedHashes(ctx: IExecuteFunctions, id: string, itemIndex: number, subaccount: IDataObject | undefined): Promise<Set<string>> {
	const order = await apiRequest(ctx, {
		method: 'GET',
		path: `/payment-orders/${encodeURIComponent(id)}`,
		qs: subaccount,
		itemIndex,
	});
	const transfers = (order.inboundTransfers as IDataObject[] | undefined) ?? [];
	return new Set(transfers.map((t) => normalizeHash(String(t.transactionHash ?? ''))).filter(Boolean));
}

/** EVM hashes are hex (any case); others, such as Solana's base58, are case-sensitive. */
function normalizeHash(hash: string): string {
	return /^0x/i.test(hash) ? hash.toLowerCase() : hash;
}
