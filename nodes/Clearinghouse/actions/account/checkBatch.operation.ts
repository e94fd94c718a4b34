/**
 * GET /account/limits, once for the whole batch, and with Business Key set GET /payment-orders
 * (paged, the last 90 days) once: reads, safe to repeat. Nothing is written; the input items are
 * only read for their amounts and keys, as Payment Order → Create would read them.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { readAccountLimits } from '../accountLimits';
import { amountField, optionsCollection, subaccountReadOption } from '../fields';
import { itemParameter, operationError, subaccountQuery } from '../parameters';
import { validateIdempotencyKey } from '../../../shared/idempotency';
import { findOrdersByKey, KEY_LOOKUP_DAYS } from '../paymentOrder/findOrders';
import { laterNow, keyStateOf } from '../paymentOrder/foundOrder';
import { orderAmount } from '../paymentOrder/orderAmount';
import { checkBatch } from './batchLimits';

const properties: INodeProperties[] = [
	{
		displayName: 'Order Fields',
		name: 'dataMode',
		type: 'options',
		noDataExpression: true,
		default: 'defineBelow',
		options: [
			{
				name: 'Define Below',
				value: 'defineBelow',
				description: "Set Amount (USD) below, usually as an expression reading the item's amount, as in Payment Order → Create",
			},
			{
				name: 'Map Automatically',
				value: 'autoMapInputData',
				description: 'Read each input item\'s field "amountUsd", as Payment Order → Create does with Map Automatically',
			},
		],
		description: 'Where the amount of each order of the batch comes from: set it the way the Create node after this one reads it',
	},
	{ ...amountField, displayOptions: { show: { dataMode: ['defineBelow'] } } },
	{
		displayName: 'Business Key',
		name: 'businessKey',
		type: 'string',
		default: '',
		placeholder: "e.g. {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}",
		description:
			'Optional: the key each order will be created with, as Payment Order → Create reads it. Set, the check also lists the keys that already have an order (usedKeys: when, by which order, its status), so a scheduled workflow can stop before it pays anything.',
	},
	optionsCollection([
		{
			...subaccountReadOption,
			description: 'Name a direct child subaccount (UUID). The ceilings and usage are those of the parent account either way.',
		},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['checkBatch'] } }, properties);

/** All input items against the account's limits, in one output item paired with the first; the other items produce nothing. */
export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]> {
	if (itemIndex !== 0) return [];
	const items = ctx.getInputData();
	const mapped = ctx.getNodeParameter('dataMode', 0, 'defineBelow') === 'autoMapInputData';
	const amounts: UsdAmount[] = [];
	for (let n = 0; n < items.length; n++) {
		try {
			amounts.push(orderAmount(ctx, n, mapped));
		} catch (error) {
			throw operationError(
				ctx,
				`Row ${n + 1}: ${(error as Error).message}`,
				0,
				'Every order of the batch needs a valid amount before the batch can be checked.',
			);
		}
	}
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const limits = await readAccountLimits(ctx, 0, subaccountQuery(options));
	const report = { ...checkBatch(amounts, limits), accountId: limits.accountId ?? null };
	const keys = batchKeys(ctx, items.length);
	return keys ? { ...report, ...(await keysUsed(ctx, keys, options)) } : report;
}

/** Each item's Business Key; undefined when the field is empty. */
function batchKeys(ctx: IExecuteFunctions, count: number): string[] | undefined {
	const field = ctx.getNode().parameters.businessKey;
	if (field === undefined || field === '') return undefined;
	const keys: string[] = [];
	for (let n = 0; n < count; n++) {
		const raw = itemParameter(ctx, 'businessKey', n, '');
		try {
			keys.push(validateIdempotencyKey(raw, 'Business Key'));
		} catch (error) {
			throw operationError(
				ctx,
				`Item ${n + 1}: ${(error as Error).message}`,
				0,
				'Every order of the batch needs a valid Business Key before its keys can be checked (or leave Business Key empty).',
			);
		}
	}
	return keys;
}

/** Which keys of the batch already have an order (one listing of the last 90 days). */
async function keysUsed(ctx: IExecuteFunctions, keys: string[], options: IDataObject): Promise<IDataObject> {
	const subaccountId = typeof options.subaccountId === 'string' && options.subaccountId.trim() !== '' ? options.subaccountId.trim() : undefined;
	const createdAfter = new Date(Date.now() - KEY_LOOKUP_DAYS * 86_400_000).toISOString();
	const index = await findOrdersByKey(ctx, { keys, createdAfter, subaccountId, includeSubaccounts: !subaccountId, itemIndex: 0 });
	const usedKeys: IDataObject[] = [];
	keys.forEach((key, n) => {
		const order = index.byKey.get(key);
		if (!order) return;
		usedKeys.push({
			item: n + 1,
			businessKey: key,
			paymentOrderId: order.id ?? null,
			status: order.status ?? null,
			createdAt: order.createdAt ?? null,
			...keyStateOf(order, laterNow(Date.now(), index.skewMs)),
		});
	});
	const dead = usedKeys.filter((u) => u.keyState === 'dead').length;
	return {
		keysChecked: keys.length,
		keysUsed: usedKeys.length,
		usedKeys,
		keysNote:
			usedKeys.length === 0
				? `None of the ${keys.length} Business Keys has an order since ${createdAfter}: each makes a new order.`
				: `${usedKeys.length} of the ${keys.length} Business Keys already have an order (items ${usedKeys.map((u) => u.item).join(', ')}${dead > 0 ? `; ${dead} of them can no longer pay` : ''}): Payment Order → Create pays nothing new for them. If this is a new period, put the period in the key, e.g. {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}.`,
	};
}
