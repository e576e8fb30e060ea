import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { ValidationError } from '../errors.js';
import { builder } from './builder.js';

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.scalarType('File', {
  description: 'A file sent with the GraphQL multipart request spec (input only).',
  serialize: () => {
    throw new Error('File is an input-only scalar');
  },
  // Anything but an uploaded file (a string in JSON variables) is bad input, not a failure later.
  parseValue: (value) => {
    if (value !== null && typeof value === 'object' && typeof (value as Blob).arrayBuffer === 'function') return value as File;
    throw new ValidationError('File: expected a file sent with the GraphQL multipart request', [{ path: ['file'], message: 'not an uploaded file' }]);
  },
});
