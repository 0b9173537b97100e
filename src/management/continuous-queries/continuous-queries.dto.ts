import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
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
