// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function FoldersPage() {
  return <PageHeader title="Folders" description="Not built yet." />;
}
