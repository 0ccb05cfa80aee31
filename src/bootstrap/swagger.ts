import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { schemaBodyComponents } from '@app/common/http/schema-body.decorator';

/** Swagger UI at /docs, JSON at /docs-json. */
export function setUpSwagger(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Agent tool gateway')
      .setDescription(
        'Decides which tools a model may see, runs the calls it proposes exactly once, and asks a human when a call is risky. ' +
          'Authenticate with "Authorization: Bearer <key>": the admin key (ADMIN_API_KEY) or keys made with POST /api/v1/admin/api-keys.',
      )
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  // Bodies described by a JSON Schema (SchemaBody) are components under their own names.
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...schemaBodyComponents() },
  };
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
