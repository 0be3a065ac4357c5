// A column written with its table's name, for SQL fragments that other modules put into their statements.
// Drizzle writes the columns of a one-table query's select list bare ("organization_id"); inside a subquery over
// another table with a column of the same name, a bare name means the inner table's column — a correlated subquery
// would then compare a column with itself. Fragments meant for a select list (clockOffsetSql, connectionSql)
// name the outer column through this.
import { getTableName, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

export const qualified = (column: AnyPgColumn): SQL => sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
