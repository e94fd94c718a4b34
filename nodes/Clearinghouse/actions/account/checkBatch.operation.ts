/**
 * GET /account/limits, once for the whole batch: a read, safe to repeat. Nothing is written; the
 * input items are only read for their amounts, as Payment Order → Create would read them.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { apiRequest } from '../../../shared/transport';
import { amountField, optionsCollection, subaccountReadOption } from '../fields';
import { itemParameter, operationError, subaccountQuery, usdAmount } from '../parameters';
import { inputValue } from '../paymentOrder/inputItem';
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
	optionsCollection([
		{
			...subaccountReadOption,
			description: 'Name a direct child subaccount (UUID). The ceilings and usage are those of the parent account either way.',
		},
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['checkBatch'] } }, properties);

/**
 * All input items against the account's limits, in one output item (paired with the first input
 * item): the count and sum for the netting window and the day, the largest order against maxTxUsd,
 * `ok` and the problems in words. The other items produce nothing.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]> {
	if (itemIndex !== 0) return [];
	const items = this.getInputData();
	const mapped = this.getNodeParameter('dataMode', 0, 'defineBelow') === 'autoMapInputData';
	const amounts: UsdAmount[] = [];
	for (let n = 0; n < items.length; n++) {
		try {
			// Map Automatically: the column Create reads the amount from (amountUsd, Amount (USD), Amount, ...).
			const input = mapped ? inputValue(items[n].json, 'amountUsd') : itemParameter(this, 'amountUsd', n, '');
			amounts.push(usdAmount(this, input, n, mapped ? 'Input field "amountUsd"' : 'Amount (USD)'));
		} catch (error) {
			throw operationError(
				this,
				`Row ${n + 1}: ${(error as Error).message}`,
				0,
				'Every order of the batch needs a valid amount before the batch can be checked.',
			);
		}
	}
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const limits = await apiRequest.call(this, { method: 'GET', path: '/account/limits', qs: subaccountQuery(options), itemIndex: 0 });
	return { ...checkBatch(amounts, limits), accountId: limits.accountId ?? null };
}
