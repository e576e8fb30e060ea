import { ensureBuilt } from '../../scripts/build.mjs';

/** The browser suites drive the built chat app: build it first when its sources changed. */
export default async function setup() {
  await ensureBuilt(['web']);
}
