// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function TagsPage() {
  return <PageHeader title="Tags" description="Not built yet." />;
}
