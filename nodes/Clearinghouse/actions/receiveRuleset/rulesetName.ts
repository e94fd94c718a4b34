import type { IExecuteFunctions } from 'n8n-workflow';

import { operationError } from '../parameters';

/** A ruleset's name as the service takes it (POST /rulesets, PATCH /rulesets/{id}): 1-120 characters after trimming. */
export function rulesetName(ctx: IExecuteFunctions, name: string, itemIndex: number): string {
	if (name.length < 1 || name.length > 120) throw operationError(ctx, `Name must be 1-120 characters after trimming (got ${name.length})`, itemIndex);
	return name;
}
