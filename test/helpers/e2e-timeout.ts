/**
 * The e2e tier's timeout for a test or hook: 180 s. A suite's first stack boots cold (its modules
 * loaded through Jest's registry, a Temporal worker, the management app), and in CI that happens
 * while the fault runs start their own stacks beside Jest on the same two cores: a fresh-clone run
 * once saw order-workflow's beforeAll pass 90 s there, though it takes a few seconds alone.
 */
jest.setTimeout(180_000);
