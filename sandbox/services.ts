/** The collaborators every route module receives. */
import type { Core } from './core';
import type { Engine } from './engine';
import type { Traffic } from './traffic';
import type { Webhooks } from './webhooks';

export interface Services {
	core: Core;
	engine: Engine;
	webhooks: Webhooks;
	traffic: Traffic;
}
