import type { BenchContext } from './context';
export async function benchPackage(_ctx: BenchContext, _tarball: string): Promise<unknown> { return undefined; }
