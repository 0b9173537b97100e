import { describeE2eBatch } from '../../helpers/e2e-batch';

describeE2eBatch(__filename);
