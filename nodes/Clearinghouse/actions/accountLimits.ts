import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../shared/transport';
import { readOncePerRun } from './readOnce';

const limitsOnce = readOncePerRun<Promise<IDataObject>, string>();

/**
 * GET /account/limits, the one read of the account's limits, always with the order's subaccount query
 * (the spec: it changes which account the answer names, not the numbers). Read once per run and query;
 * `anew` reads again (Check Account Limits First, before each order, sees what earlier orders used).
 */
export async function readAccountLimits(ctx: IExecuteFunctions, itemIndex: number, subaccount: IDataObject | undefined, anew = false): Promise<IDataObject> {
	const read = () => apiRequest(ctx, { method: 'GET', path: '/account/limits', qs: subaccount, itemIndex });
	return await (anew ? read() : limitsOnce(ctx, String(subaccount?.subaccountId ?? ''), read));
}
