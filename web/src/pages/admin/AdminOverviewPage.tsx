// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function AdminOverviewPage() {
  return <PageHeader title="Server overview" description="Not built yet." />;
}
