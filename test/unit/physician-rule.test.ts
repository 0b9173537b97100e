import type { HttpException } from '@nestjs/common';
import type { LabflowConfig } from '../../src/config/config';
import { LabAccountsService } from '../../src/lab-tests/lab-accounts.service';
import { type PhysicianAsker, PhysicianRule } from '../../src/orders/physician-rule';

/** PhysicianRule: one decision for the four routes, each refusing in its own words (unchanged from before the rule moved). */
describe('PhysicianRule', () => {
  const config = { orders: { physicianEnforcementDate: new Date('2020-01-01T00:00:00Z') } } as LabflowConfig;
  const rule = new PhysicianRule(new LabAccountsService(null as never, null as never), null as never, config);
  const delegated = { id: 'acct-1', delegatedFlow: 'order_delegated' as const };
  const refusal = (asker: PhysicianAsker): HttpException => {
    try {
      rule.check(delegated, 'quest', null, asker);
    } catch (error) {
      return error as HttpException;
    }
    throw new Error(`${asker}: no refusal`);
  };

  it('passes an order that names a physician, or that does not need one', () => {
    expect(() => rule.check(delegated, 'quest', { npi: '1234567893' }, 'order')).not.toThrow();
    expect(() => rule.check({ id: 'acct-2', delegatedFlow: 'not_delegated' }, 'quest', null, 'order')).not.toThrow();
    expect(() => rule.check(delegated, 'us_biotek', undefined, 'import')).not.toThrow();
  });

  it('refuses in each route’s words', () => {
    const issue = (asker: PhysicianAsker) => (refusal(asker).getResponse() as { detail: Array<{ loc: unknown; msg: string }> }).detail[0];
    expect(refusal('order').getStatus()).toBe(422);
    expect(issue('order')).toMatchObject({
      loc: ['body', 'physician'],
      msg: 'Lab account acct-1 is order_delegated at quest: orders on it must name a physician.',
    });
    expect(issue('import')).toMatchObject({ loc: ['body', 'physician'], msg: 'Lab account acct-1 is order_delegated: orders on it must name a physician.' });
    expect(issue('registration')).toMatchObject({ loc: ['body', 'physician'], msg: 'Orders on this lab account must name a physician.' });
    expect(refusal('recreation').getStatus()).toBe(400);
    expect(refusal('recreation').getResponse()).toMatchObject({
      detail: 'Lab account acct-1 is order_delegated at quest: orders on it must name a physician, and the original order names none.',
    });
  });
});
