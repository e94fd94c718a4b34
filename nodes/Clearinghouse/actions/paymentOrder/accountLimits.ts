import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { limitBreaches } from '../../../shared/limits';
import { apiRequest } from '../../../shared/transport';
import { operationError } from '../parameters';

/**
 * Create's pre-flight (Options → Check Account Limits First): GET /account/limits for the order's
 * account (`subaccount`: the subaccountId query, undefined for this account) and refuse, before
 * anything is sent, an order that would not fit.
 */
export async function checkAccountLimits(this: IExecuteFunctions, itemIndex: number, amount: UsdAmount, subaccount: IDataObject | undefined): Promise<void> {
	const limits = await apiRequest.call(this, { method: 'GET', path: '/account/limits', qs: subaccount, itemIndex });
	const checked = limitBreaches(limits, { order: amount });
	if ('unreadable' in checked) {
		throw operationError(
			this,
			checked.unreadable.message,
			itemIndex,
			'Nothing was sent. Options → Check Account Limits First reads GET /account/limits and sends no order it cannot check against them.',
		);
	}
	const problems = checked.breaches;
	if (problems.length > 0) {
		throw operationError(
			this,
			`The payment would breach the account limits: ${problems.join('; ')}`,
			itemIndex,
			'Nothing was sent. Limits belong to the parent account and count every subaccount; lower the amount or wait for the window or day to roll over.',
		);
	}
}
