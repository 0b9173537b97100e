import { Controller, Get, Patch, Post, UseInterceptors } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse, ZodSerializerInterceptor } from 'nestjs-zod';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import {
  CreateLabTestDto,
  LabAccountListDto,
  LabAccountQuery,
  LabAccountsQuery,
  LabDto,
  LabProviderParams,
  LabTestDto,
  LabTestIdParams,
  LabTestPageDto,
  ListLabTestsQuery,
  MarkerDto,
  MarkersPageDto,
  MarkersQuery,
  OrderSetDto,
  OrderSetPageQuery,
  PageQuery,
  PaginatedLabTestsQuery,
  UpdateLabTestDto,
} from './lab-tests.dto';
import { LabAccountsService } from './lab-accounts.service';
import { LabTestsService } from './lab-tests.service';
import { inlinePdf } from '../common/pdf-response';
import { PdfResponse } from '../common/openapi';

/** Lab tests, markers and labs (`/v3/lab_tests/...`). Responses are checked against their schemas. */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@UseInterceptors(ZodSerializerInterceptor)
@Controller('v3/lab_tests')
export class LabTestsController {
  constructor(private readonly labTests: LabTestsService) {}

  @Get()
  @ZodResponse({ status: 200, type: [LabTestDto] })
  list(@CurrentTeam() team: TeamPrincipal, @Query() query: ListLabTestsQuery) {
    return this.labTests.list(team, query);
  }

  @Post()
  @ZodResponse({ status: 200, type: LabTestDto })
  create(@CurrentTeam() team: TeamPrincipal, @Body() body: CreateLabTestDto) {
    return this.labTests.create(team, body);
  }

  @Get('labs')
  @ZodResponse({ status: 200, type: [LabDto] })
  labs() {
    return this.labTests.labs();
  }

  @Get('markers')
  @ZodResponse({ status: 200, type: MarkersPageDto })
  markers(@CurrentTeam() team: TeamPrincipal, @Query() query: MarkersQuery) {
    return this.labTests.markers(team, query);
  }

  @Post('list_order_set_markers')
  @ZodResponse({ status: 200, type: MarkersPageDto })
  orderSetMarkers(@CurrentTeam() team: TeamPrincipal, @Query() query: OrderSetPageQuery, @Body() body: OrderSetDto) {
    return this.labTests.orderSetMarkers(team, body, query.page, query.size);
  }

  @Get(':lab_test_id')
  @ZodResponse({ status: 200, type: LabTestDto })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: LabTestIdParams, @Query() query: LabAccountQuery) {
    return this.labTests.get(team, params.lab_test_id, query.lab_account_id);
  }

  @Patch(':lab_test_id')
  @ZodResponse({ status: 200, type: LabTestDto })
  update(@CurrentTeam() team: TeamPrincipal, @Param() params: LabTestIdParams, @Body() body: UpdateLabTestDto) {
    return this.labTests.update(team, params.lab_test_id, body);
  }

  @Get(':lab_test_id/markers')
  @ZodResponse({ status: 200, type: MarkersPageDto })
  markersOfTest(@CurrentTeam() team: TeamPrincipal, @Param() params: LabTestIdParams, @Query() query: PageQuery) {
    return this.labTests.markersOfTest(team, params.lab_test_id, query);
  }

  @Get(':lab_id/markers/:provider_id')
  @ZodResponse({ status: 200, type: MarkerDto })
  markerByProviderId(@CurrentTeam() team: TeamPrincipal, @Param() params: LabProviderParams, @Query() query: LabAccountQuery) {
    return this.labTests.markerByProviderId(team, params.lab_id, params.provider_id, query.lab_account_id);
  }
}

/** `GET /v3/lab_test`: lab tests with a cursor. */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@UseInterceptors(ZodSerializerInterceptor)
@Controller('v3/lab_test')
export class LabTestPagesController {
  constructor(
    private readonly labTests: LabTestsService,
    private readonly labAccounts: LabAccountsService,
  ) {}

  @Get()
  @ZodResponse({ status: 200, type: LabTestPageDto })
  list(@CurrentTeam() team: TeamPrincipal, @Query() query: PaginatedLabTestsQuery) {
    return this.labTests.listPage(team, query);
  }

  @Get('lab_account')
  @ZodResponse({ status: 200, type: LabAccountListDto })
  listLabAccounts(@CurrentTeam() team: TeamPrincipal, @Query() query: LabAccountsQuery) {
    return this.labAccounts.list(team, query);
  }
}

/** A lab test's collection instructions as a PDF (apart: no response schema to serialize). */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@Controller('v3/lab_test')
export class LabTestInstructionsController {
  constructor(private readonly labTests: LabTestsService) {}

  @Get(':lab_test_id/collection_instruction_pdf')
  @ApiProduces('application/pdf')
  @PdfResponse()
  async collectionInstructions(@CurrentTeam() team: TeamPrincipal, @Param() params: LabTestIdParams) {
    const pdf = await this.labTests.collectionInstructionsPdf(team, params.lab_test_id);
    return inlinePdf(pdf, `collection-instructions-${params.lab_test_id}.pdf`);
  }
}
