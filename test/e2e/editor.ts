/**
 * A person in n8n's editor, for the browser files: the page expressions that find what they see, and
 * `editorPerson(browser, n8n)`, whose actions (clicks, typing, a nodes-panel search, a dropdown or a list
 * entry picked, a panel opened or closed, a run) are counted in its `used` as the person acts. The figures
 * docs/sandbox.md quotes (firstPayout's and csvPayout's clicks, typed entries, searches, runs) are these counts.
 */
import type { Browser } from '../../harness/browser';
import type { N8nInstance } from '../../harness/n8nProcess';
import { waitFor } from '../../harness/wait';

const js = (value: unknown) => JSON.stringify(value);

/** A parameter's input in the open node's panel, by the parameter's name. */
export const param = (name: string) => `document.querySelector('[data-test-id="ndv"] [data-test-id="parameter-input-${name}"]')`;
/** A resource locator's value input (From List: the field that opens the list). */
export const locatorInput = (name: string) =>
	`(() => { const e = ${param(name)}?.querySelector('[data-test-id="rlc-input"]'); return e?.matches('input, textarea') ? e : e?.querySelector('input, textarea'); })()`;
export const searchBar = `document.querySelector('[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]')`;
/** An entry of the nodes panel: by its exact name, or by a pattern its name (its text when it shows none) matches. */
export const entry = (name: string | RegExp) =>
	`[...document.querySelectorAll('[data-test-id="item-iterator-item"]')].find((e) => ${
		typeof name === 'string'
			? `(e.querySelector('[data-test-id="node-creator-item-name"]')?.textContent.trim() ?? '') === ${js(name)}`
			: `${name}.test(e.querySelector('[data-test-id="node-creator-item-name"]')?.textContent.trim() ?? e.textContent.trim())`
	})`;
/** The nodes panel's entries as shown (what a wait for an entry reports when it times out). */
export const listed = `[...document.querySelectorAll('[data-test-id="item-iterator-item"]')].map((e) => e.textContent.trim().slice(0, 80))`;
export const nodeNames = `[...document.querySelectorAll('[data-test-id="canvas-node"]')].map((e) => e.dataset.nodeName)`;
export const canvasNode = (name: string) => `document.querySelector('[data-test-id="canvas-node"][data-node-name=${js(name)}]')`;
/** The + on a node's output, which opens the nodes panel for the node after it. */
export const plusAfter = (node: string) =>
	`document.querySelector('[data-test-id="canvas-node-output-handle"][data-node-name=${js(node)}] [data-test-id="canvas-handle-plus"]')`;
export const ndvOpen = `!!document.querySelector('[data-test-id="ndv"]')?.getBoundingClientRect().width`;
/** The text of the open panel's output. */
export const outputShown = `(document.querySelector('[data-test-id="ndv-output-panel"]') ?? document.querySelector('[data-test-id="output-panel"]'))?.innerText`;
/** The output table's created column, one cell per row. */
export const createdColumn = `(() => { const panel = document.querySelector('[data-test-id="ndv-output-panel"]') ?? document.querySelector('[data-test-id="output-panel"]');
	const head = [...panel.querySelectorAll('thead th')].map((th) => th.textContent.trim()); const at = head.indexOf('created');
	return [...panel.querySelectorAll('tbody tr')].map((r) => r.children[at]?.textContent.trim()); })()`;
/** n8n's notifications (a run's error on the canvas), one text. */
export const toasts = `[...document.querySelectorAll('.el-notification')].map((e) => e.innerText).join('\\n---\\n')`;

/** What a person did, counted as they act. */
export interface Used {
	clicks: number;
	/** The fields typed into. */
	typed: string[];
	/** The nodes-panel searches typed. */
	searches: string[];
	/** Key shortcuts. */
	keys: string[];
	/** Fields set: each dropdown chosen (`parameter = option`), and what a test adds. */
	fields: string[];
	/** Execute workflow clicks. */
	runs: number;
}

export type EditorPerson = ReturnType<typeof editorPerson>;

/** A person at the editor of `n8n` in `browser`, who counts what they do in `used`. */
export function editorPerson(browser: Browser, n8n: N8nInstance) {
	const used: Used = { clicks: 0, typed: [], searches: [], keys: [], fields: [], runs: 0 };

	/** A click (`count` 2: a double click, two clicks) on the element a page expression returns. */
	async function click(what: string, element: string, count = 1) {
		used.clicks += count;
		await browser.clickWhere(what, element, 60_000, count);
	}
	/** Clicks into a field, selects what it holds (Ctrl+A) when `selectAll`, and types (or pastes) `text`. */
	async function typeInto(field: string, element: string, text: string, selectAll: boolean) {
		await click(`the ${field} field`, element);
		await browser.waitFor(
			`focus in ${field}`,
			`(() => { const el = ${element}; return el && (el === document.activeElement || el.contains(document.activeElement)); })()`,
			10_000,
		);
		if (selectAll) {
			used.keys.push('Ctrl+A');
			await browser.press('a', 2);
		}
		used.typed.push(field);
		await browser.insertText(text);
	}
	/** Picks an option of an n8n dropdown parameter: the dropdown, then the option. */
	async function choose(parameter: string, option: string) {
		await click(`the ${parameter} dropdown`, `${param(parameter)}?.querySelector('.el-select__wrapper, .el-select, input')`);
		await click(
			`the option ${option}`,
			`[...document.querySelectorAll('.el-select-dropdown__item')].find((e) => e.offsetParent && e.textContent.trim().startsWith(${js(option)}))`,
		);
		used.fields.push(`${parameter} = ${option}`);
		await browser.waitFor(
			`${parameter} set to ${option}`,
			`${param(parameter)}?.querySelector('input')?.value === ${js(option)}`,
			30_000,
			`${param(parameter)}?.innerHTML.slice(0, 500)`,
		);
	}
	/** Picks an entry of a resource locator's From List: the field (the list opens), then the entry named `name`. */
	async function pickFromList(parameter: string, name: string) {
		await click(`the ${parameter} list`, locatorInput(parameter));
		const item = `[...document.querySelectorAll('[data-test-id="rlc-item"]')].find((e) => e.offsetParent && e.textContent.trim().startsWith(${js(name)}))`;
		const items = `[...document.querySelectorAll('[data-test-id="rlc-item"], [data-test-id="rlc-error-container"]')].map((e) => e.textContent.trim().slice(0, 200))`;
		await browser.waitFor(`${name} in the ${parameter} list`, item, 60_000, items);
		await click(`the entry ${name}`, item);
		await browser.waitFor(`${parameter} set to ${name}`, `${locatorInput(parameter)}?.value === ${js(name)}`, 30_000, `${locatorInput(parameter)}?.value`);
	}
	/** The nodes panel is open: types `text` in its search bar (a click first when the focus is elsewhere), in place of what it holds. */
	async function search(text: string) {
		await browser.waitFor('the nodes panel search bar', searchBar, 60_000);
		if (!(await browser.evaluate(`document.activeElement === ${searchBar}`))) await click('the nodes panel search bar', searchBar);
		await browser.evaluate(`${searchBar}?.select()`);
		used.searches.push(text);
		await browser.insertText(text);
	}
	/** The nodes panel is open: search, add the entry `name`, then its `action` when given. */
	async function addFromPanel(text: string, name: RegExp, action?: RegExp) {
		await search(text);
		await browser.waitFor(`the entry ${name}`, entry(name), 60_000, listed);
		await click(`the entry ${name}`, entry(name));
		if (!action) return;
		await browser.waitFor(`the action ${action}`, entry(action), 60_000, listed);
		await click(`the action ${action}`, entry(action));
	}

	return {
		used,
		click,
		/** Clicks into an empty field and types (or pastes) a value. */
		fill: (field: string, element: string, text: string) => typeInto(field, element, text, false),
		/** Clicks into a field, selects what it holds (Ctrl+A) and types (or pastes) the new value. */
		replace: (field: string, element: string, text: string) => typeInto(field, element, text, true),
		choose,
		pickFromList,
		search,
		addFromPanel,
		/** The nodes added last: the `count` names the canvas shows now that it did not show before. */
		async added(before: string[], count = 1): Promise<string[]> {
			return await browser.waitFor<string[]>(
				`${count} new node(s) on the canvas`,
				`(() => { const fresh = ${nodeNames}.filter((n) => !${js(before)}.includes(n)); return fresh.length >= ${count} && fresh; })()`,
				60_000,
				nodeNames,
			);
		},
		/** Waits for a node's panel, known by one of its parameters. */
		async panel(what: string, parameter: string) {
			await browser.waitFor(`the ${what} panel`, param(parameter), 60_000, `document.body.innerText.slice(0, 1500)`);
		},
		/** Waits until n8n has given the new node the credential `name` (the only one of its type). */
		async credentialGiven(name: string) {
			await browser.waitFor(
				`the credential ${name}, given to the new node`,
				`[...document.querySelectorAll('[data-test-id="node-credentials-select"] input')].some((i) => i.value === ${js(name)})`,
				30_000,
				`document.querySelector('[data-test-id="node-credentials-select"]')?.outerHTML.slice(0, 800)`,
			);
		},
		/** Opens a node's panel from the canvas (a double click). */
		async openNode(name: string) {
			await click(`the ${name} node`, canvasNode(name), 2);
			await browser.waitFor(`the ${name} panel`, ndvOpen, 30_000);
		},
		async closePanel() {
			await click('the panel close button', `document.querySelector('[data-test-id="ndv-close-button"]')`);
			await browser.waitFor('the canvas again', `!(${ndvOpen})`, 30_000);
		},
		/** The open panel's Execute step. */
		async executeStep(what = 'Execute step') {
			await click(what, `document.querySelector('[data-test-id="ndv"] [data-test-id="node-execute-button"]')`);
		},
		/** Execute workflow on the canvas (n8n saves a new workflow first); resolves with the run once n8n has finished it. */
		async runWorkflow() {
			const before = n8n.finishedExecutions().length;
			used.runs++;
			await click('Execute workflow', `document.querySelector('[data-test-id="execute-workflow-button"]')`);
			const all = await waitFor(() => n8n.finishedExecutions().length > before && n8n.finishedExecutions(), 180_000, `run ${used.runs} finished in n8n`, 250);
			return all.sort((a, b) => a.id - b.id).at(-1)!;
		},
	};
}
