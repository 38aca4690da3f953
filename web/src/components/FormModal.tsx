// A modal with a form about one thing (a folder, a tag, a short link): the whole screen on a phone, a fresh form for
// each thing it is opened for, and, while it fades out after closing, still the last thing instead of nothing.
import { Modal, type ModalProps } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { Fragment, type ReactNode } from 'react';
import { useLastValue } from '../lib/use-last-value';

export function FormModal<T>({
  value: requested,
  onClose,
  title,
  formKey,
  size,
  children,
}: {
  /** What the form is about; null: closed. */
  value: T | null;
  onClose: () => void;
  title: string | ((value: T) => string);
  /** Which form this is (an id, or 'new'): another key starts the form afresh. */
  formKey: (value: T) => string;
  size?: ModalProps['size'];
  /** The form, given the thing and whether the modal fills a phone's screen. */
  children: (value: T, phone: boolean) => ReactNode;
}) {
  const phone = useMediaQuery('(max-width: 47.99em)', false, { getInitialValueInEffect: false });
  const value = useLastValue(requested);
  const heading = value === null ? '' : typeof title === 'string' ? title : title(value);
  return (
    <Modal opened={requested !== null} onClose={onClose} title={heading} fullScreen={phone} size={size}>
      {value !== null ? <Fragment key={formKey(value)}>{children(value, phone)}</Fragment> : null}
    </Modal>
  );
}
