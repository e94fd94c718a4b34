import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** What every `<operation>.operation.ts` exports: its own fields and how it runs for one item. */
export interface Operation {
	description: INodeProperties[];
	/** Runs the operation for one input item; an array becomes one output item per record. */
	execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/** Checks over the whole batch, once per run before any item starts (so they hold under Concurrency > 1); a throw sends nothing. */
	preflight?(ctx: IExecuteFunctions, itemCount: number): Promise<void>;
	/**
	 * The row's own checks, run for every row before any row is sent; sends no write (a read is allowed).
	 * A throw is the row's problem: without Continue On Fail nothing is sent and one error lists every such row.
	 */
	checkRow?(ctx: IExecuteFunctions, itemIndex: number): Promise<void>;
	/** How a person knows the item's row in an error (a Business Key, a memo); undefined when none; never throws. */
	rowReference?(ctx: IExecuteFunctions, itemIndex: number): string | undefined;
	/**
	 * What the rows that succeeded before a row failed made, for the run's error (a person who runs the
	 * batch again must know): `made` ends the message's count, `detail` opens its description.
	 */
	succeededRows?(ctx: IExecuteFunctions, records: IDataObject[]): { made: string; detail: string };
}

/** A resource's Operation field (its index.ts): the operations in the panel's order. */
export function operationField(resource: string, defaultOperation: string, options: INodePropertyOptions[]): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}
