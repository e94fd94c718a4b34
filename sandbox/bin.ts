#!/usr/bin/env node
/** The published sandbox package's command (`npx n8n-nodes-clearinghouse-sandbox`): main.ts, as `npm run sandbox` runs it in a clone. */
import './main';
