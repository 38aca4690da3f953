// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function UsersPage() {
  return <PageHeader title="Users" description="Not built yet." />;
}
