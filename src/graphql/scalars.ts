import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { builder } from './builder.js';

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.scalarType('File', {
  description: 'A file sent with the GraphQL multipart request spec (input only).',
  serialize: () => {
    throw new Error('File is an input-only scalar');
  },
});
