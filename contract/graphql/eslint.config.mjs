// graphql-eslint's schema-recommended over the SDL the server serves
// (schema/*.graphqls, the files gqlgen compiles in). Run from the
// repository root: contract/graphql's Go test does, and fails on any error.
// Every rule left out or changed below says why; docs/graphql-schema.md
// describes the conventions.
import graphqlPlugin from '@graphql-eslint/eslint-plugin';

const recommended = graphqlPlugin.configs['flat/schema-recommended'].rules;
const [, { EnumValueDefinition: _upperCase, ...naming }] =
  recommended['@graphql-eslint/naming-convention'];

export default [
  {
    files: ['schema/*.graphqls'],
    languageOptions: {
      parser: graphqlPlugin.parser,
      parserOptions: { graphQLConfig: { schema: 'schema/*.graphqls' } },
    },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      ...recommended,

      // Enum values keep the spelling REST, webhook events and the README
      // share (Dispatched, InTransit, OWNER_OPERATOR, TONU): a GraphQL enum
      // value is its wire string, so UPPER_CASE would rename every status a
      // client stores or compares, in all three transports at once.
      '@graphql-eslint/naming-convention': ['error', naming],

      // loadNumber, tripNumber, userName, trailerNum, noteType are the public keys
      // and wire names of the REST resources and the event snapshots
      // (load(loadNumber:) is how a load is found); a field named `number`
      // on Load would be a second name for the same value. It also flags
      // Invoice.invoicedDate, where "invoiced" is a word, not the prefix.
      '@graphql-eslint/no-typename-prefix': 'off',

      // Every object a client caches has `id: ID!`. The exceptions are
      // values (no identity of their own: equal fields are the same value),
      // parts read only through their parent (Apollo keeps them inside it),
      // and the Relay paging wrappers.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          acceptedIdNames: ['id'],
          acceptedIdTypes: ['ID'],
          exceptions: {
            suffixes: ['Connection', 'Edge', 'Data'],
            types: [
              'Money',
              'Address',
              'PageInfo',
              'LineRate',
              'Stop',
              'StatementTotals',
              'StatementLineItem',
              'StatementSubLine',
              'TrailerCapacity',
              'TrailerReference',
              'Change',
              'ChangeTarget',
              'EventDiff',
              'WebhookWithSecret',
              'EventDestinationWithSecret',
            ],
          },
        },
      ],

      // Every type, field, argument, input field and enum value says what it
      // is: the descriptions are the reference a generated client shows.
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          DirectiveDefinition: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
        },
      ],
    },
  },
];
