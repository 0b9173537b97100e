import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/db/data-source';
import { OrderEntity } from '../../src/orders/order.entities';
import { orderFromRow } from '../../src/orders/order-read-model';

/**
 * orderFromRow (the order read statements' hand-written row mapper) against TypeORM's own
 * hydration of the same row, column by column: a column added to OrderEntity and not to the
 * mapper fails here. The rows hold what pg gives for each column type (a `date` as pg's local
 * midnight, timestamps as Dates, jsonb parsed, text[] as arrays). No database is reached: TypeORM
 * builds the entities' metadata without connecting.
 */
describe('orderFromRow', () => {
  const db = new DataSource(dataSourceOptions('postgres://nobody@127.0.0.1:1/none'));
  beforeAll(async () => {
    await (db as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  });

  /** TypeORM's hydration of a queried orders row (what OrderReadModel did before orderFromRow). */
  const typeormHydration = (row: Record<string, unknown>) => {
    const metadata = db.getMetadata(OrderEntity);
    const order = metadata.create(undefined, { fromDeserializer: true }) as OrderEntity;
    for (const column of metadata.columns) {
      const value = row[column.databaseName];
      if (value !== undefined) column.setEntityValue(order, db.driver.prepareHydratedValue(value, column));
    }
    return order;
  };

  /** A row with a value of the column's type in every column (`nulls`: null wherever the column allows it). */
  const rowOf = (nulls: boolean) => {
    const row: Record<string, unknown> = {};
    for (const column of db.getMetadata(OrderEntity).columns) {
      const type = String(column.type);
      if (nulls && column.isNullable) row[column.databaseName] = null;
      else if (type === 'date') row[column.databaseName] = new Date(2027, 2, 14);
      else if (type === 'timestamptz') row[column.databaseName] = new Date(Date.UTC(2026, 10, 28, 21, 30, 0, 123));
      else if (type === 'jsonb') row[column.databaseName] = { first_name: 'Ada', nested: [1, { deep: true }] };
      else if (column.isArray) row[column.databaseName] = ['E11.9', 'Z00.00'];
      else if (type === 'boolean') row[column.databaseName] = true;
      else if (type === 'integer') row[column.databaseName] = 7;
      else row[column.databaseName] = `${column.databaseName}-value`;
    }
    // Columns of the read statements that are not the order's (they are ignored).
    return { ...row, read_events: null, read_total: 1 };
  };

  it('gives what TypeORM hydrates, for every column, with values and with nulls', () => {
    for (const nulls of [false, true]) {
      const row = rowOf(nulls);
      const mapped = orderFromRow(row);
      const hydrated = typeormHydration(row);
      expect(mapped).toBeInstanceOf(OrderEntity);
      for (const column of db.getMetadata(OrderEntity).columns) {
        expect({ [column.propertyName]: column.getEntityValue(mapped) }).toEqual({ [column.propertyName]: column.getEntityValue(hydrated) });
      }
      expect(mapped).toEqual(hydrated);
    }
  });

  it("prints a date column as TypeORM does (YYYY-MM-DD of pg's local midnight)", () => {
    expect(orderFromRow(rowOf(false)).activateBy).toBe('2027-03-14');
  });
});
