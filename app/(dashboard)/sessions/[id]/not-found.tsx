import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function SessionNotFound() {
  return <RecordNotFound kind="session" />;
}
