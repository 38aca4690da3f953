// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function FilesPage() {
  return <PageHeader title="Files" description="Not built yet." />;
}
