import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** What every `<operation>.operation.ts` exports: its own fields and how it runs for one item. */
export interface Operation {
	description: INodeProperties[];
	/** Runs the operation for one input item; an array becomes one output item per record. */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/**
	 * Optional checks over the whole batch, run by the router once per run of the node before any
	 * item starts (so they hold under Concurrency > 1). A throw fails every item and sends nothing.
	 */
	preflight?(this: IExecuteFunctions, itemCount: number): Promise<void>;
	/**
	 * Optional: how a person knows the item's row (a Business Key, a memo), for errors that name a
	 * row. Undefined when the item has none; never throws.
	 */
	rowReference?(this: IExecuteFunctions, itemIndex: number): string | undefined;
}
