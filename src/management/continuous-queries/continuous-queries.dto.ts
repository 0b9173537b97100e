import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { continuousQueryDefinition } from '../../health-data/continuous-queries/continuous-queries.dto';
import { environmentParam, uuidParam } from '../common/params';

export class ContinuousQueriesParams extends createZodDto(z.object({ org_id: uuidParam, team_id: uuidParam, environment: environmentParam })) {}

export class ContinuousQueryParams extends createZodDto(
  z.object({ org_id: uuidParam, team_id: uuidParam, environment: environmentParam, query_id_or_slug: z.string().min(1).max(64) }),
) {}

export class CreateContinuousQueryDto extends createZodDto(continuousQueryDefinition) {}

export class PatchContinuousQueryDto extends createZodDto(
  continuousQueryDefinition.partial().refine((patch) => Object.keys(patch).length > 0, 'Name at least one of slug, query, past.'),
) {}

/** A continuous query as the routes answer it (the service's `toView`), documented in the management document. */
const continuousQueryView = z.object({
  id: z.string(),
  slug: z.string(),
  query: z.record(z.string(), z.unknown()),
  past: z.object({ value: z.number(), unit: z.string() }),
  reads: z.string().describe('The data the query reads (its source), whose changes schedule evaluations.'),
  team_id: z.string(),
  environment: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export class ContinuousQueryResponse extends responseDto(continuousQueryView) {}

export class ContinuousQueryListResponse extends responseDto(z.object({ data: z.array(continuousQueryView) })) {}
