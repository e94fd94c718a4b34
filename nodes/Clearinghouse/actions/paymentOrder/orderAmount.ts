import type { IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { itemParameter, usdAmount } from '../parameters';
import { inputValue } from './inputItem';

/** The one reader of an order's amount (Create, its Max Total per Run, Check Batch): the parameter, or the mapped column. Exact. */
export function orderAmount(ctx: IExecuteFunctions, itemIndex: number, mapped: boolean): UsdAmount {
	return mapped
		? usdAmount(ctx, inputValue(ctx.getInputData()[itemIndex]?.json ?? {}, 'amountUsd'), itemIndex, 'Input field "amountUsd"')
		: usdAmount(ctx, itemParameter(ctx, 'amountUsd', itemIndex, ''), itemIndex, 'Amount (USD)');
}
