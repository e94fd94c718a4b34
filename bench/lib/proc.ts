import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';

/** Linux /proc readings of one process (kB → MB). */
function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
	try {
		const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) : undefined;
	} catch {
		return undefined;
	}
}

/** Resets the kernel's peak-RSS mark (VmHWM) of a process: `echo 5 > /proc/<pid>/clear_refs`. */
function resetPeak(pid: number): boolean {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

/**
 * The pid of `n8n <command>` started by the harness in `root` (its cwd): the harness does not
 * expose the child, so it is found by command line and working directory.
 */
export function findN8nPid(root: string, command: string): number | undefined {
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			if (!args.some((a) => /n8n$/.test(a)) || !args.includes(command)) continue;
			if (readlinkSync(`/proc/${entry}/cwd`) !== root) continue;
			return Number(entry);
		} catch {
			// the process ended while we looked
		}
	}
	return undefined;
}

/**
 * Peak RSS of a process during `work`: the kernel's VmHWM after a reset when allowed, else the
 * highest VmRSS seen by polling every 20 ms. Returns the MB before and at the peak.
 */
export async function withPeakMemory<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; beforeMb: number; peakMb: number; source: string }> {
	const before = statusKb(pid, 'VmRSS') ?? 0;
	const reset = resetPeak(pid);
	let polled = before;
	const timer = setInterval(() => {
		const rss = statusKb(pid, 'VmRSS');
		if (rss !== undefined && rss > polled) polled = rss;
	}, 20);
	try {
		const result = await work();
		const hwm = reset ? (statusKb(pid, 'VmHWM') ?? 0) : 0;
		return {
			result,
			beforeMb: before / 1024,
			peakMb: Math.max(hwm, polled) / 1024,
			source: reset ? 'VmHWM (reset before the run)' : 'VmRSS polled every 20 ms',
		};
	} finally {
		clearInterval(timer);
	}
}

/**
 * CPU time a process has used so far, user plus system, in ms (/proc/<pid>/stat fields 14 and 15,
 * in clock ticks of 10 ms). It covers every thread of the process, so n8n's isolates too.
 */
export function cpuMs(pid: number): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return undefined;
	}
}
