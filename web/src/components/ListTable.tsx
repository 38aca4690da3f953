// A list as a table in a bordered card: the column headers, then the rows (Table.Tr) given as children. The last
// column holds each row's action buttons and is named "Actions" for screen readers only. Narrower than `minWidth`, the
// table scrolls sideways inside the card.
import { Card, Table, VisuallyHidden, type CardProps } from '@mantine/core';
import type { ReactNode } from 'react';

export interface ListColumn {
  label: string;
  align?: 'left' | 'right';
}

export function ListTable({
  columns,
  minWidth,
  nativeScroll,
  children,
  ...cardProps
}: {
  columns: Array<string | ListColumn>;
  minWidth: number;
  /** The browser's own scroll bar instead of Mantine's. */
  nativeScroll?: boolean;
  children: ReactNode;
} & Omit<CardProps, 'children'>) {
  return (
    <Card withBorder p={0} {...cardProps}>
      <Table.ScrollContainer minWidth={minWidth} type={nativeScroll ? 'native' : undefined}>
        <Table verticalSpacing="sm" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => {
                const { label, align } = typeof column === 'string' ? { label: column, align: undefined } : column;
                return (
                  <Table.Th key={label} ta={align}>
                    {label}
                  </Table.Th>
                );
              })}
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>{children}</Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}
