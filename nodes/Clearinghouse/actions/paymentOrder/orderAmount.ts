import type { IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { itemParameter, usdAmount } from '../parameters';
import { inputValue } from './inputItem';

/**
 * The one reader of an order's amount, for Payment Order → Create, its batch guard (Max Total per
 * Run, read before any item starts) and Account → Check Batch: the Amount (USD) parameter, or with
 * Order Fields → Map Automatically the input item's amount column (amountUsd, Amount (USD), Amount,
 * ...). Exact decimal text; an amount that does not parse fails the item, naming the field.
 */
export function orderAmount(ctx: IExecuteFunctions, itemIndex: number, mapped: boolean): UsdAmount {
	return mapped
		? usdAmount(ctx, inputValue(ctx.getInputData()[itemIndex]?.json ?? {}, 'amountUsd'), itemIndex, 'Input field "amountUsd"')
		: usdAmount(ctx, itemParameter(ctx, 'amountUsd', itemIndex, ''), itemIndex, 'Amount (USD)');
}
